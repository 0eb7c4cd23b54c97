#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tokenizer {

// Hand-written equivalents of tiktoken's pre-tokenization patterns. Each returns the end of the
// piece that starts at `pos` (pos < size): the end of the match that the pattern's regex, run by
// a backtracking engine with leftmost-first alternation, finds at `pos`. No regex engine is
// involved; Unicode classes come from ICU's character properties. Ill-formed UTF-8 is read one
// byte at a time as U+FFFD (a symbol: neither letter, number nor space), so every byte lands in
// exactly one piece.
std::size_t scan_r50k(const std::uint8_t* text, std::size_t size, std::size_t pos);
std::size_t scan_cl100k(const std::uint8_t* text, std::size_t size, std::size_t pos);
std::size_t scan_o200k(const std::uint8_t* text, std::size_t size, std::size_t pos);

// The patterns the scanners implement, exactly as tiktoken's `pat_str`.
extern const std::string_view kR50kPattern;
extern const std::string_view kCl100kPattern;
extern const std::string_view kO200kPattern;

}  // namespace tokenizer
