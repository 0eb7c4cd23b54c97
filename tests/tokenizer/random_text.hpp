#pragma once

// Seeded generators of test input: the same texts on every run and every machine with the same
// standard library, so a failure reproduces. Each kind aims at a different part of the library:
// ill-formed UTF-8, Unicode character classes, the pattern's ASCII alternatives (mixed with
// emoji, and alone, as the SIMD scanners' mask rules see them), and pieces long enough for the
// heap path of BytePairEncoder.

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace tokenizer::test {

enum class TextKind { bytes, unicode, ascii_mix, long_runs, plain_ascii };

inline constexpr TextKind kAllTextKinds[] = {TextKind::bytes, TextKind::unicode, TextKind::ascii_mix,
                                             TextKind::long_runs, TextKind::plain_ascii};

inline std::string text_kind_name(TextKind kind) {
  switch (kind) {
    case TextKind::bytes: return "bytes";
    case TextKind::unicode: return "unicode";
    case TextKind::ascii_mix: return "ascii_mix";
    case TextKind::plain_ascii: return "plain_ascii";
    case TextKind::long_runs: return "long_runs";
  }
  return "unknown";
}

// Printable, unambiguous form of a byte string for failure messages: printable ASCII as is,
// everything else as a C escape.
inline std::string escaped(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (const unsigned char c : bytes) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c >= 0x20 && c < 0x7F) {
          out += static_cast<char>(c);
        } else {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        }
    }
  }
  return out + "\"";
}

// escaped() of at most the first `limit` bytes, for inputs that run to 20 KiB.
inline std::string escaped_start(std::string_view bytes, std::size_t limit = 600) {
  if (bytes.size() <= limit) return escaped(bytes);
  return escaped(bytes.substr(0, limit)) + "... (" + std::to_string(bytes.size()) + " bytes)";
}

inline void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | c >> 6);
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | c >> 12);
    out += static_cast<char>(0x80 | (c >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | c >> 18);
    out += static_cast<char>(0x80 | (c >> 12 & 0x3F));
    out += static_cast<char>(0x80 | (c >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

class RandomText {
 public:
  explicit RandomText(std::uint64_t seed) : rng_(seed) {}

  std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }
  std::size_t between(std::size_t low, std::size_t high) {
    return std::uniform_int_distribution<std::size_t>(low, high)(rng_);
  }
  template <class Container>
  const auto& pick(const Container& items) {
    return items[below(std::size(items))];
  }
  char lower_letter() { return static_cast<char>(between('a', 'z')); }
  char punctuation() {
    static constexpr std::string_view kPunctuation = "!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~";
    return kPunctuation[below(kPunctuation.size())];
  }
  char letter() { return below(2) ? lower_letter() : static_cast<char>(between('A', 'Z')); }

  // 0..200 bytes: half of the time uniform bytes, else fragments of UTF-8 — lead bytes of every
  // kind (C0, C1 and F5..FF included) followed by 0..3 continuation bytes, and ASCII — so that
  // truncated, overlong, surrogate and well-formed sequences all occur.
  std::string bytes() {
    const std::size_t size = between(0, 200);
    std::string out;
    if (below(2) == 0) {
      while (out.size() < size) out += static_cast<char>(below(256));
      return out;
    }
    while (out.size() < size) {
      if (below(3) == 0) {
        out += static_cast<char>(below(0x80));
        continue;
      }
      out += static_cast<char>(between(0xC0, 0xFF));
      for (std::size_t n = below(4); n > 0; --n) out += static_cast<char>(between(0x80, 0xBF));
    }
    return out;
  }

  // 0..80 code points or short sequences from many scripts and character classes.
  std::string unicode() {
    std::string out;
    for (std::size_t n = between(0, 80); n > 0; --n) {
      if (below(8) == 0) {
        out += pick(kSequences);
      } else {
        const CodePointRange& r = pick(kCodePoints);
        append_utf8(out, static_cast<char32_t>(between(r.first, r.last)));
      }
    }
    return out;
  }

  // 0..100 units of ASCII words, digits, whitespace, contractions, punctuation and emoji: the
  // alternatives of the tiktoken patterns and the places where they meet. Now and then a word
  // of 50..150 letters.
  std::string ascii_mix() {
    static constexpr std::string_view kUnits[] = {" ",  "  ", "\t", "\r", "\n", "\r\n", "\n\n", " \n", "/",
                                                  "//", "'",  "😀", "👍🏽", "\x0B", "\x0C"};
    std::string out;
    for (std::size_t n = between(0, 100); n > 0; --n) {
      switch (below(6)) {
        case 0:
          if (below(25) == 0) {
            // A word around and past BytePairEncoder::kShortPiece: capitalised at most, so that
            // o200k keeps it whole too.
            out += letter();
            for (std::size_t k = between(50, 150); k > 0; --k) out += lower_letter();
          } else {
            for (std::size_t k = between(1, 8); k > 0; --k) out += letter();
          }
          break;
        case 1: out += static_cast<char>(between('0', '9')); break;
        case 2: out += pick(kContractions); break;
        case 3: out += punctuation(); break;
        default: out += pick(kUnits); break;
      }
    }
    return out;
  }

  // 0..150 units of ASCII only: mixed-case words, digit runs around the length \p{N}{1,3}
  // splits, punctuation runs, every small mix of whitespace, and contractions with near misses.
  // No non-ASCII byte interrupts it, so whole windows of it are what the SIMD scanners decide
  // from their class masks alone, and every rule of those masks meets every other.
  std::string plain_ascii() {
    static constexpr std::string_view kAsciiContractions[] = {"'s", "'T", "'re", "'rE", "'VE", "'m", "'ll", "'Ll",
                                                              "'d",  "'x", "'",   "''s", "'l",  "'r", "'v"};
    static constexpr std::string_view kSpaces[] = {" ",    " ",   " ",    "  ",   "   ",  "\t",  "\n",    "\n\n",
                                                   "\r\n", "\n ", "\n  ", " \n", "\v",  "\f",  "\n\t", " \t "};
    std::string out;
    for (std::size_t n = between(0, 150); n > 0; --n) {
      switch (below(11)) {
        case 0:
        case 1:
        case 2:
          for (std::size_t k = between(1, 10); k > 0; --k) out += below(4) ? lower_letter() : letter();
          break;
        case 3:
          for (std::size_t k = between(1, 7); k > 0; --k) out += static_cast<char>(between('0', '9'));
          break;
        case 4:
        case 5:
          for (std::size_t k = between(1, 3); k > 0; --k) out += punctuation();
          break;
        case 6: out += pick(kAsciiContractions); break;
        default: out += pick(kSpaces); break;
      }
    }
    return out;
  }

  // 2 KiB to 20 KiB of one kind of run, most of them single pieces far longer than
  // BytePairEncoder::kShortPiece.
  std::string long_run() {
    static constexpr std::string_view kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static constexpr std::string_view kRepeated[] = {"😀", "a", " ", "\r\n", "👍🏽", "\t ", "ab", "\n"};
    const std::size_t size = between(2048, 20480);
    // Every kind in turn, so that a few dozen texts cover them all, and so the repeated units.
    const std::size_t kind = long_runs_made_ % 8;
    const std::string_view repeated = kRepeated[long_runs_made_ / 8 % std::size(kRepeated)];
    ++long_runs_made_;
    std::string out;
    while (out.size() < size) {
      switch (kind) {
        case 0: out += lower_letter(); break;
        case 1: out += letter(); break;
        case 2: out += static_cast<char>(between('0', '9')); break;
        case 3: out += kBase64[below(kBase64.size())]; break;
        case 4: append_utf8(out, static_cast<char32_t>(between(0x4E00, 0x9FFF))); break;
        case 5: append_utf8(out, static_cast<char32_t>(between(0x915, 0x94D))); break;  // Devanagari letters, marks
        case 6: out += below(2) ? ' ' : '\n'; break;
        default: out += repeated; break;
      }
    }
    // Runs sometimes end in something else, which changes how they split.
    if (below(2)) out += pick(kEndings);
    return out;
  }

  std::string text(TextKind kind) {
    switch (kind) {
      case TextKind::bytes: return bytes();
      case TextKind::unicode: return unicode();
      case TextKind::ascii_mix: return ascii_mix();
      case TextKind::plain_ascii: return plain_ascii();
      case TextKind::long_runs: return long_run();
    }
    return {};
  }

 private:
  struct CodePointRange {
    char32_t first, last;
  };

  static constexpr CodePointRange kCodePoints[] = {
      {'a', 'z'}, {'A', 'Z'}, {'0', '9'}, {'!', '/'}, {':', '@'}, {'\'', '\''},
      {0xC0, 0xFF},              // Latin-1 letters (and × ÷)
      {0x100, 0x17F},            // Latin Extended-A, up to U+017F ſ
      {0x17F, 0x17F},            // ſ, which case-folds to s
      {0x1C4, 0x1CC},            // DŽ Dž dž LJ Lj lj NJ Nj nj: titlecase letters among them
      {0x1F1, 0x1F3},            // DZ Dz dz
      {0x1F88, 0x1F8F},          // Greek titlecase letters
      {0x2B0, 0x2FF},            // modifier letters (Lm) and modifier symbols (Sk)
      {0x3005, 0x3005},          // 々, Lm
      {0x300, 0x36F},            // combining marks
      {0x370, 0x3FF},            // Greek
      {0x400, 0x4FF},            // Cyrillic
      {0x591, 0x5F4},            // Hebrew
      {0x600, 0x6FF},            // Arabic, with Arabic-Indic digits
      {0x660, 0x669},            // Arabic-Indic digits
      {0x900, 0x97F},            // Devanagari, with its combining marks and digits
      {0x966, 0x96F},            // Devanagari digits
      {0xE01, 0xE5B},            // Thai
      {0x3040, 0x30FF},          // Hiragana, Katakana
      {0x4E00, 0x9FFF},          // CJK
      {0xAC00, 0xD7A3},          // Hangul syllables
      {0xFF10, 0xFF19},          // fullwidth digits
      {0xFF21, 0xFF3A},          // fullwidth capitals
      {0x2160, 0x2188},          // Roman numerals: letter numbers (Nl)
      {0xB2, 0xB3}, {0xB9, 0xB9}, {0xBC, 0xBE},  // ² ³ ¹ ¼ ½ ¾: other numbers (No)
      {0x2460, 0x249B},          // circled and parenthesised numbers (No)
      {0x1F300, 0x1F64F},        // emoji
      {0x1F900, 0x1F9FF},        // emoji
      {0x1F3FB, 0x1F3FF},        // skin tone modifiers
      {0x200D, 0x200D},          // zero width joiner
      {0xFE0F, 0xFE0F},          // variation selector 16
      {0x10400, 0x1044F},        // Deseret: astral upper and lower case letters
      {0x1D400, 0x1D7FF},        // mathematical letters and digits, astral
      {0x20000, 0x2A6DF},        // CJK extension B, astral
      {0x200B, 0x200B}, {0x2060, 0x2060}, {0xFEFF, 0xFEFF}, {0x180E, 0x180E},  // not White_Space
      {0x1C, 0x1F},              // separators that are not White_Space
      {0xFFFD, 0xFFFD}, {0xE000, 0xE0FF}, {0x378, 0x379},  // replacement, private use, unassigned
      // Every White_Space character, listed twice as often as a script.
      {0x9, 0xD}, {0x20, 0x20}, {0x85, 0x85}, {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A},
      {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000},
      {0x9, 0xD}, {0x20, 0x20}, {0x85, 0x85}, {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A},
      {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000},
  };

  static constexpr std::string_view kContractions[] = {"'s", "'S", "'ſ", "'t",  "'T",  "'re", "'RE", "'rE", "'ve", "'VE",
                                                       "'m", "'M", "'ll", "'Ll", "'LL", "'d",  "'D",  "'x",  "'",   "''s"};

  static constexpr std::string_view kSequences[] = {
      "👨‍👩‍👧‍👦", "👍🏽", "🏳️‍🌈", "👩🏿‍💻", "e\u0301", "क्षि", "\r\n", "'s", "'ſ", "'RE", "ǅa", "Ⅻ", "½",
  };

  static constexpr std::string_view kEndings[] = {"x", " ", "\n", "1", "!", "'s", " a", "😀", "\xFF"};

  std::mt19937_64 rng_;
  std::size_t long_runs_made_ = 0;
};

// `count` texts of one kind from a fixed seed: the same on every call.
inline std::vector<std::string> random_texts(TextKind kind, std::size_t count) {
  RandomText random(0x5EED0000u + static_cast<std::uint64_t>(kind));
  std::vector<std::string> texts;
  texts.reserve(count);
  for (std::size_t i = 0; i < count; ++i) texts.push_back(random.text(kind));
  return texts;
}

// How many texts of each kind the randomised tests run: thousands in all, a few dozen long ones.
inline std::size_t default_text_count(TextKind kind) { return kind == TextKind::long_runs ? 32 : 1500; }

// The texts of each kind that the randomised tests share, generated once per process.
inline const std::vector<std::string>& shared_random_texts(TextKind kind) {
  static const std::vector<std::vector<std::string>> all = [] {
    std::vector<std::vector<std::string>> texts;
    for (const TextKind k : kAllTextKinds) texts.push_back(random_texts(k, default_text_count(k)));
    return texts;
  }();
  return all[static_cast<std::size_t>(kind)];
}

}  // namespace tokenizer::test
