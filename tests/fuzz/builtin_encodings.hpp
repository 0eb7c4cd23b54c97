#pragma once

// The built-in encodings for the fuzz targets that use them, each loaded on first use and kept:
// loading one takes far longer than running an input.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.hpp"
#include "tokenizer/vocabulary.hpp"

namespace fuzz {

// Built-in encoding number `index` (modulo their number) as a T made from its Tokenizer: the
// Tokenizer itself, or a target's bundle of it and what it derives from it.
template <class T = tokenizer::Tokenizer>
const T& builtin_encoding(std::size_t index) {
  static const std::vector<std::string> names = tokenizer::Vocabulary::builtin_names();
  static std::vector<std::unique_ptr<T>> loaded(names.size());
  std::unique_ptr<T>& slot = loaded[index % names.size()];
  if (!slot)
    slot = std::make_unique<T>(tokenizer::Tokenizer(tokenizer::Vocabulary::builtin(names[index % names.size()])));
  return *slot;
}

}  // namespace fuzz
