#include "tokenizer/piece_scanners.hpp"

#include "unicode_class.hpp"

namespace tokenizer {

const std::string_view kR50kPattern =
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)re";
const std::string_view kCl100kPattern =
    R"re((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";
const std::string_view kO200kPattern =
    R"re([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";

namespace {

using namespace unicode;

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// o200k's two letter classes: "upper-ish" [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and "lower-ish"
// [\p{Ll}\p{Lm}\p{Lo}\p{M}]. They overlap in Lm, Lo and M.
constexpr std::uint8_t kUpperish = kUpper | kOtherLetter | kMark;
constexpr std::uint8_t kLowerish = kLower | kOtherLetter | kMark;

struct Char {
  char32_t value;
  std::uint8_t cls;
  std::uint32_t size;
};

struct Text {
  const std::uint8_t* data;
  std::size_t size;

  [[gnu::always_inline]] Char at(std::size_t pos) const {
    const std::uint8_t b = data[pos];
    if (b < 0x80) return {b, kAsciiClass[b], 1};
    const CodePoint cp = decode_utf8(data + pos, size - pos);
    return {cp.value, classify(cp.value, bmp_classes()), cp.size};
  }
  std::uint8_t cls(std::size_t pos) const { return pos < size ? at(pos).cls : 0; }

  std::size_t skip_class(std::size_t pos, std::uint8_t mask) const {
    while (pos < size && data[pos] < 0x80) {
      if (!(kAsciiClass[data[pos]] & mask)) return pos;
      ++pos;
    }
    while (pos < size) {
      const Char c = at(pos);
      if (!(c.cls & mask)) break;
      pos += c.size;
    }
    return pos;
  }
  std::size_t skip_punct(std::size_t pos) const {
    while (pos < size) {
      const Char c = at(pos);
      if (!is_punct(c.cls)) break;
      pos += c.size;
    }
    return pos;
  }
  // [\r\n]* , or [\r\n/]* with `slash`.
  std::size_t skip_newlines(std::size_t pos, bool slash) const {
    while (pos < size && (data[pos] == '\r' || data[pos] == '\n' || (slash && data[pos] == '/'))) ++pos;
    return pos;
  }
  // \p{N}{1,3} at pos, which holds a number.
  std::size_t skip_up_to_3_numbers(std::size_t pos) const {
    for (int n = 0; n < 3 && pos < size; ++n) {
      const Char c = at(pos);
      if (!(c.cls & kNumber)) break;
      pos += c.size;
    }
    return pos;
  }

  // 's|'t|'re|'ve|'m|'ll|'d at pos; returns its end or kNone. Case-insensitive matching follows
  // simple case folding, under which U+017F LATIN SMALL LETTER LONG S is an 's' too.
  std::size_t contraction(std::size_t pos, bool ignore_case) const {
    if (pos >= size || data[pos] != '\'') return kNone;
    auto letter = [&](std::size_t p, std::size_t& end) -> char32_t {
      if (p >= size) return 0;
      const Char c = at(p);
      end = p + c.size;
      if (!ignore_case) return c.value;
      if (c.value >= 'A' && c.value <= 'Z') return c.value + ('a' - 'A');
      return c.value == 0x17F ? U's' : c.value;
    };
    std::size_t end1 = 0, end2 = 0;
    switch (letter(pos + 1, end1)) {
      case 's': case 't': case 'm': case 'd': return end1;
      case 'r': case 'v': return letter(end1, end2) == 'e' ? end2 : kNone;
      case 'l': return letter(end1, end2) == 'l' ? end2 : kNone;
      default: return kNone;
    }
  }
  // The whitespace alternatives at pos, which holds a space:
  //   \s*[\r\n]+ (only with `newline_rule`) | \s+(?!\S) | \s+
  // With backtracking these mean: up to the last newline of the run if it has one; else the
  // whole run at the end of text; else the run less its last character, unless that empties it.
  std::size_t whitespace(std::size_t pos, bool newline_rule) const {
    std::size_t end = pos, last_start = pos, after_newline = kNone;
    while (end < size) {
      const Char c = at(end);
      if (!(c.cls & kSpace)) break;
      last_start = end;
      end += c.size;
      if (c.cls & kNewline) after_newline = end;
    }
    if (newline_rule && after_newline != kNone) return after_newline;
    if (end == size || last_start == pos) return end;
    return last_start;
  }
};

// [^\r\n\p{L}\p{N}]? : the optional one-character prefix of the letter alternatives.
constexpr bool is_letter_prefix(std::uint8_t cls) { return !(cls & (kNewline | kLetter | kNumber)); }

// o200k's [upper-ish]*[lower-ish]+ at pos. When the greedy upper-ish run is not followed by a
// lower-ish character, backtracking hands characters back until the last one of the run that is
// also lower-ish (Lm, Lo, M) can serve as the [lower-ish]+ part.
std::size_t o200k_lower_word(const Text& t, std::size_t pos) {
  std::size_t q = pos, after_last_lowerish = kNone;
  while (q < t.size) {
    const Char c = t.at(q);
    if (!(c.cls & kUpperish)) break;
    q += c.size;
    if (c.cls & kLowerish) after_last_lowerish = q;
  }
  const std::size_t r = t.skip_class(q, kLowerish);
  return r > q ? r : after_last_lowerish;
}

// o200k's [upper-ish]+[lower-ish]* at pos.
std::size_t o200k_upper_word(const Text& t, std::size_t pos) {
  const std::size_t q = t.skip_class(pos, kUpperish);
  return q == pos ? kNone : t.skip_class(q, kLowerish);
}

}  // namespace

std::size_t scan_r50k(const std::uint8_t* data, std::size_t size, std::size_t pos) {
  const Text t{data, size};
  const Char c = t.at(pos);
  if (c.value == '\'') {
    if (const std::size_t e = t.contraction(pos, false); e != kNone) return e;
  }
  // ` ?\p{L}+ | ?\p{N}+ | ?[^\s\p{L}\p{N}]+`: a space binds to whatever run follows it.
  std::size_t start = pos;
  std::uint8_t cls = c.cls;
  if (c.value == ' ' && pos + 1 < size) {
    const std::uint8_t next = t.cls(pos + 1);
    if (!(next & kSpace)) start = pos + 1, cls = next;
  }
  if (start != pos || !(cls & kSpace)) {
    if (cls & kLetter) return t.skip_class(start, kLetter);
    if (cls & kNumber) return t.skip_class(start, kNumber);
    return t.skip_punct(start);
  }
  return t.whitespace(pos, false);
}

std::size_t scan_cl100k(const std::uint8_t* data, std::size_t size, std::size_t pos) {
  const Text t{data, size};
  const Char c = t.at(pos);
  const std::size_t next = pos + c.size;
  if (c.value == '\'') {
    if (const std::size_t e = t.contraction(pos, true); e != kNone) return e;
  }
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (c.cls & kLetter) return t.skip_class(next, kLetter);
  if (is_letter_prefix(c.cls) && (t.cls(next) & kLetter)) return t.skip_class(next, kLetter);
  // \p{N}{1,3}
  if (c.cls & kNumber) return t.skip_up_to_3_numbers(pos);
  // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
  if (is_punct(c.cls)) return t.skip_newlines(t.skip_punct(next), false);
  if (c.value == ' ' && next < size && is_punct(t.cls(next))) return t.skip_newlines(t.skip_punct(next), false);
  return t.whitespace(pos, true);
}

// o200k's letter alternatives where the word starts at `start` with an ASCII letter: an ASCII
// word is its upper-case run, then its lower-case run (ASCII has no Lm, Lo or M, which both
// classes hold), whichever alternative matches; kNone where a non-ASCII byte follows, which may
// continue the word.
std::size_t o200k_ascii_word(const Text& t, std::size_t start) {
  std::size_t q = start;
  while (q < t.size && static_cast<unsigned>(t.data[q] - 'A') < 26u) ++q;
  while (q < t.size && static_cast<unsigned>(t.data[q] - 'a') < 26u) ++q;
  return q < t.size && t.data[q] >= 0x80 ? kNone : q;
}

std::size_t scan_o200k(const std::uint8_t* data, std::size_t size, std::size_t pos) {
  const Text t{data, size};
  const Char c = t.at(pos);
  const std::size_t next = pos + c.size;
  // The two letter alternatives, each tried first with the optional prefix taken, then without;
  // none can match unless the first character, or the one after a prefix, is in a letter class.
  const bool prefix = is_letter_prefix(c.cls);
  const std::uint8_t next_cls = prefix ? t.cls(next) : 0;
  std::size_t e = kNone;
  if (c.value < 0x80 && ((c.cls & kLetter) || (next_cls & kLetter && data[next] < 0x80)))
    e = o200k_ascii_word(t, c.cls & kLetter ? pos : next);
  if (e == kNone && ((c.cls | next_cls) & (kUpperish | kLowerish))) {
    e = prefix ? o200k_lower_word(t, next) : kNone;
    if (e == kNone) e = o200k_lower_word(t, pos);
    if (e == kNone && prefix) e = o200k_upper_word(t, next);
    if (e == kNone) e = o200k_upper_word(t, pos);
  }
  if (e != kNone) {
    const std::size_t with_contraction = t.contraction(e, true);
    return with_contraction != kNone ? with_contraction : e;
  }
  // \p{N}{1,3}
  if (c.cls & kNumber) return t.skip_up_to_3_numbers(pos);
  // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  if (is_punct(c.cls)) return t.skip_newlines(t.skip_punct(next), true);
  if (c.value == ' ' && next < size && is_punct(t.cls(next))) return t.skip_newlines(t.skip_punct(next), true);
  return t.whitespace(pos, true);
}

}  // namespace tokenizer
