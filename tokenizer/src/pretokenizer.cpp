#include "tokenizer/pretokenizer.hpp"

namespace tokenizer {

PreTokenizer::PreTokenizer(std::string_view pattern) {
  if (pattern == kR50kPattern) kind_ = PatternKind::r50k;
  else if (pattern == kCl100kPattern) kind_ = PatternKind::cl100k;
  else if (pattern == kO200kPattern) kind_ = PatternKind::o200k;
  else {
    kind_ = PatternKind::regex;
    regex_ = std::make_shared<const RegexPreTokenizer>(pattern);
  }
}

std::vector<std::string_view> PreTokenizer::split(std::string_view text) const {
  std::vector<std::string_view> pieces;
  for_each_piece(text, [&](std::string_view piece) { pieces.push_back(piece); });
  return pieces;
}

}  // namespace tokenizer
