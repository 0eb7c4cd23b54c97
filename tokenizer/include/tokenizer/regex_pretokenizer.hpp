#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include <unicode/uversion.h>

U_NAMESPACE_BEGIN
class RegexPattern;
U_NAMESPACE_END

namespace tokenizer {

// The reference pre-tokenizer: ICU's RegexMatcher running a tiktoken pattern as written. It is
// the oracle for the hand-written scanners and serves vocabularies whose pattern has no scanner.
// Ill-formed UTF-8 bytes are matched as U+FFFD, one per byte, as the scanners read them.
class RegexPreTokenizer {
 public:
  // Throws std::invalid_argument naming ICU's error and the offset in the pattern.
  explicit RegexPreTokenizer(std::string_view pattern);
  ~RegexPreTokenizer();
  RegexPreTokenizer(RegexPreTokenizer&&) noexcept;
  RegexPreTokenizer& operator=(RegexPreTokenizer&&) noexcept;

  // End offset of every piece, in order; the last is text.size(). Throws std::runtime_error if
  // the pattern leaves a byte unmatched (tiktoken would silently drop it).
  std::vector<std::size_t> piece_ends(std::string_view text) const;

 private:
  std::unique_ptr<icu::RegexPattern> pattern_;
};

}  // namespace tokenizer
