#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace tokenizer {

// Which special tokens `Tokenizer::encode` turns into their ids. Special-token text that is not
// allowed is encoded as ordinary text, or raises DisallowedSpecialToken when
// `error_on_disallowed` is set (tiktoken's `disallowed_special="all"`).
struct SpecialTokenPolicy {
  enum class Allow { none, all, listed };
  Allow allow = Allow::none;
  std::vector<std::string> listed;  // texts of the allowed tokens, with Allow::listed
  bool error_on_disallowed = false;

  static SpecialTokenPolicy none() { return {}; }
  static SpecialTokenPolicy all() { return {Allow::all, {}, false}; }
  static SpecialTokenPolicy only(std::vector<std::string> texts) { return {Allow::listed, std::move(texts), false}; }
};

class DisallowedSpecialToken : public std::runtime_error {
 public:
  DisallowedSpecialToken(const std::string& text, std::size_t offset);
  const std::string& text() const { return text_; }
  std::size_t offset() const { return offset_; }

 private:
  std::string text_;
  std::size_t offset_;
};

}  // namespace tokenizer
