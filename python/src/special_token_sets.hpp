#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/special_tokens.hpp"
#include "tokenizer/vocabulary.hpp"

namespace tokbench_python {

// tiktoken's `allowed_special` and `disallowed_special` arguments ("all" or a collection of
// special-token texts), resolved against a vocabulary: which special tokens encode as their ids,
// and which are an error where their text occurs. Texts that name no special token are ignored,
// as tiktoken ignores them.
class SpecialTokenSets {
 public:
  SpecialTokenSets(const tokenizer::Vocabulary& vocabulary, pybind11::handle allowed, pybind11::handle disallowed);

  const tokenizer::SpecialTokenPolicy& policy() const { return policy_; }
  bool allows_any() const { return policy_.allow != tokenizer::SpecialTokenPolicy::Allow::none; }
  // Raises ValueError, with tiktoken's message, for the disallowed token whose text occurs first
  // in `text` (the longest of those that start there).
  void check(std::string_view text) const;

 private:
  tokenizer::SpecialTokenPolicy policy_;
  std::vector<std::string> disallowed_;
};

}  // namespace tokbench_python
