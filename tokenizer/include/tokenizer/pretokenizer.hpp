#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
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
    scan_from(text, 0, [&](std::size_t start, std::size_t end) {
      f(text.substr(start, end - start));
      return true;
    });
  }

  // The chain of pieces that starts at byte `from`. Calls f(start, end) for each piece until f
  // returns false or the text ends, and returns the start of the piece it stopped at (or
  // text.size()). For the scanner-backed kinds `from` may be any offset: a piece's end depends
  // only on the text and its start (the patterns look ahead but never behind), so two chains
  // that share one boundary share every boundary after it; the parallel encoder relies on this.
  // The regex kind matches the whole text and takes only from == 0.
  template <class F>
  std::size_t scan_from(std::string_view text, std::size_t from, F&& f) const {
    switch (kind_) {
      case PatternKind::r50k: return scan_chain<scan_r50k>(text, from, f);
      case PatternKind::cl100k: return scan_chain<scan_cl100k>(text, from, f);
      case PatternKind::o200k: return scan_chain<scan_o200k>(text, from, f);
      case PatternKind::regex: break;
    }
    if (from != 0) throw std::logic_error("a regex pre-tokenizer scans only from the start of the text");
    std::size_t start = 0;
    for (const std::size_t end : regex_->piece_ends(text)) {
      if (!f(start, end)) return start;
      start = end;
    }
    return start;
  }

  std::vector<std::string_view> split(std::string_view text) const;

 private:
  using ScanFn = std::size_t (*)(const std::uint8_t*, std::size_t, std::size_t);

  template <ScanFn Scan, class F>
  static std::size_t scan_chain(std::string_view text, std::size_t pos, F& f) {
    const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
    while (pos < text.size()) {
      const std::size_t end = Scan(data, text.size(), pos);
      if (!f(pos, end)) return pos;
      pos = end;
    }
    return pos;
  }

  PatternKind kind_;
  std::shared_ptr<const RegexPreTokenizer> regex_;
};

}  // namespace tokenizer
