#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/piece_scanners.hpp"
#include "tokenizer/regex_pretokenizer.hpp"

namespace tokenizer {

enum class PatternKind { r50k, cl100k, o200k, regex };

// Splits text into the pieces that BPE encodes one by one. The three tiktoken patterns run on
// their hand-written scanners; any other pattern runs on ICU's regex engine.
class PreTokenizer {
 public:
  explicit PreTokenizer(std::string_view pattern);

  PatternKind kind() const { return kind_; }

  // Calls f(piece) for every piece in order; the pieces tile `text` exactly.
  template <class F>
  void for_each_piece(std::string_view text, F&& f) const {
    switch (kind_) {
      case PatternKind::r50k: return scan_all(text, scan_r50k, f);
      case PatternKind::cl100k: return scan_all(text, scan_cl100k, f);
      case PatternKind::o200k: return scan_all(text, scan_o200k, f);
      case PatternKind::regex: break;
    }
    std::size_t start = 0;
    for (std::size_t end : regex_->piece_ends(text)) {
      f(text.substr(start, end - start));
      start = end;
    }
  }

  std::vector<std::string_view> split(std::string_view text) const;

 private:
  template <class Scanner, class F>
  static void scan_all(std::string_view text, Scanner scan, F& f) {
    const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
    for (std::size_t pos = 0; pos < text.size();) {
      const std::size_t end = scan(data, text.size(), pos);
      f(text.substr(pos, end - pos));
      pos = end;
    }
  }

  PatternKind kind_;
  std::shared_ptr<const RegexPreTokenizer> regex_;
};

}  // namespace tokenizer
