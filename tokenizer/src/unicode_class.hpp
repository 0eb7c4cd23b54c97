#pragma once

#include <cstddef>
#include <array>
#include <atomic>
#include <cstdint>

namespace tokenizer::unicode {

// The character classes that tiktoken's patterns distinguish, as bits.
enum : std::uint8_t {
  kUpper = 1,         // Lu, Lt
  kLower = 2,         // Ll
  kOtherLetter = 4,   // Lm, Lo
  kMark = 8,          // Mn, Mc, Me
  kNumber = 16,       // Nd, Nl, No
  kSpace = 32,        // White_Space (ICU's and Rust's \s)
  kNewline = 64,      // \r, \n
};
inline constexpr std::uint8_t kLetter = kUpper | kLower | kOtherLetter;  // \p{L}

// Neither space, letter nor number: [^\s\p{L}\p{N}], which also takes marks, symbols,
// controls, unassigned code points and ill-formed bytes.
inline constexpr bool is_punct(std::uint8_t c) { return (c & (kLetter | kNumber | kSpace)) == 0; }

struct CodePoint {
  char32_t value;
  std::uint32_t size;  // bytes consumed, 1..4
};

// Strict UTF-8 (Unicode table 3-7: no overlongs, surrogates or values past U+10FFFF). A byte
// that does not start a well-formed sequence decodes as U+FFFD of size 1, so the next call
// resynchronises on the following byte.
inline CodePoint decode_utf8(const std::uint8_t* p, std::size_t avail) {
  const std::uint8_t b0 = p[0];
  if (b0 < 0x80) return {b0, 1};
  constexpr CodePoint kBad{0xFFFD, 1};
  auto cont = [&](std::size_t i) { return i < avail && (p[i] & 0xC0) == 0x80; };
  if (b0 < 0xC2) return kBad;
  if (b0 < 0xE0) return cont(1) ? CodePoint{char32_t((b0 & 0x1F) << 6 | (p[1] & 0x3F)), 2} : kBad;
  if (b0 < 0xF0) {
    if (!cont(1) || !cont(2)) return kBad;
    if ((b0 == 0xE0 && p[1] < 0xA0) || (b0 == 0xED && p[1] >= 0xA0)) return kBad;
    return {char32_t((b0 & 0x0F) << 12 | (p[1] & 0x3F) << 6 | (p[2] & 0x3F)), 3};
  }
  if (b0 < 0xF5) {
    if (!cont(1) || !cont(2) || !cont(3)) return kBad;
    if ((b0 == 0xF0 && p[1] < 0x90) || (b0 == 0xF4 && p[1] >= 0x90)) return kBad;
    return {char32_t((b0 & 0x07) << 18 | (p[1] & 0x3F) << 12 | (p[2] & 0x3F) << 6 | (p[3] & 0x3F)), 4};
  }
  return kBad;
}

// Class bits of any code point, asked of ICU.
std::uint8_t classify_slow(char32_t c);
// Class bits of every code point below U+10000: a 64 KiB table built from ICU on first use
// (about a millisecond). Inline, a load and a branch once built, for a scanner asks it for every
// character of text in other scripts: as a call that checked a static's guard each time, it took a
// quarter of a warm pass over the multilingual text. Hidden: the library is position-independent,
// and a declaration of default visibility is read through the GOT, a load more for every character.
extern std::atomic<const std::uint8_t*> built_bmp_classes [[gnu::visibility("hidden")]];
const std::uint8_t* build_bmp_classes();
// Always inline: code compiled for wider instruction sets (the piece scanners) calls it too, and
// an out-of-line copy compiled there could be the one the linker keeps for every caller.
[[gnu::always_inline]] inline const std::uint8_t* bmp_classes() {
  const std::uint8_t* table = built_bmp_classes.load(std::memory_order_acquire);
  return table ? table : build_bmp_classes();
}

inline constexpr auto kAsciiClass = [] {
  std::array<std::uint8_t, 128> t{};
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kUpper;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kLower;
  for (int c = '0'; c <= '9'; ++c) t[c] = kNumber;
  for (int c : {'\t', '\v', '\f', ' '}) t[c] = kSpace;
  t['\r'] = t['\n'] = kSpace | kNewline;
  return t;
}();

// Class bits of code point c, with bmp = bmp_classes().
inline std::uint8_t classify(char32_t c, const std::uint8_t* bmp) {
  return c < 0x80 ? kAsciiClass[c] : c < 0x10000 ? bmp[c] : classify_slow(c);
}

struct ClassifiedChar {
  std::uint8_t cls;
  std::uint32_t size;  // bytes, 1..4
};
// The class bits and size of the character that decode_utf8(p, avail) reads, out of line, for
// code compiled for wider instruction sets, which must not compile copies of decode_utf8 and
// classify of its own (the linker could keep one of those for every caller).
ClassifiedChar classify_at(const std::uint8_t* p, std::size_t avail);

}  // namespace tokenizer::unicode
