// The body of a per-ISA piece scanner. Included by piece_scan_<isa>.cpp after defining
//   TOKENIZER_SIMD_ARCH       the xsimd architecture (xsimd::avx512bw, xsimd::avx2, xsimd::sse2)
//   TOKENIZER_SIMD_NAMESPACE  the namespace its entry points live in
// and compiled with that ISA's flags. Everything here has internal linkage or an ISA-specific
// name, and no standard-library inline function is used, so no function compiled for a wider
// ISA can be chosen by the linker for code that runs on a narrower one.

#include <xsimd/xsimd.hpp>

#include "piece_batch_scanner.hpp"
#include "tokenizer/piece_scanners.hpp"
#include "unicode_class.hpp"

namespace tokenizer::simd::TOKENIZER_SIMD_NAMESPACE {

namespace {

using Arch = TOKENIZER_SIMD_ARCH;
using Bytes = xsimd::batch<std::uint8_t, Arch>;

constexpr std::size_t kWindow = kWindowBytes;

// One bit per byte lane. The branch is chosen by the flags this file is compiled with.
inline std::uint64_t bits(xsimd::batch_bool<std::uint8_t, Arch> b) {
#if defined(__AVX512BW__)
  return static_cast<std::uint64_t>(static_cast<__mmask64>(b));
#elif defined(__AVX2__)
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(b));
#else
  return static_cast<std::uint16_t>(_mm_movemask_epi8(b));
#endif
}

// Trailing ones of x: the length of the run of set bits at bit 0 (64 when all are set).
inline std::size_t run(std::uint64_t x) { return ~x == 0 ? 64 : static_cast<std::size_t>(__builtin_ctzll(~x)); }

// Class masks of the 64 bytes of a window; bit i is byte i. ASCII classes only: a byte >= 0x80
// is in `high` and in no other mask.
struct Window {
  std::uint64_t upper, lower, digit, space, newline, blank, slash, apostrophe, high;
  std::uint64_t letter() const { return upper | lower; }
  std::uint64_t punct() const { return ~(upper | lower | digit | space | high); }
};

inline Window classify(const std::uint8_t* p) {
  Window w{};
  for (std::size_t k = 0; k < kWindow; k += Bytes::size) {
    const Bytes b = Bytes::load_unaligned(p + k);
    // b in [lo, hi] iff (b - lo) mod 256 <= hi - lo, i.e. the saturating difference is zero.
    auto in = [&](std::uint8_t lo, std::uint8_t hi) {
      return bits(xsimd::ssub(Bytes(b - Bytes(lo)), Bytes(static_cast<std::uint8_t>(hi - lo))) == Bytes(0));
    };
    w.upper |= in('A', 'Z') << k;
    w.lower |= in('a', 'z') << k;
    w.digit |= in('0', '9') << k;
    const std::uint64_t blank = bits(b == Bytes(' '));
    w.blank |= blank << k;
    w.space |= (in('\t', '\r') | blank) << k;  // \t \n \v \f \r and space
    w.newline |= (bits(b == Bytes('\n')) | bits(b == Bytes('\r'))) << k;
    w.slash |= bits(b == Bytes('/')) << k;
    w.apostrophe |= bits(b == Bytes('\'')) << k;
    w.high |= in(0x80, 0xFF) << k;
  }
  return w;
}

// The window of a text's last `avail` bytes (avail < 64), classified from a copy in `copy` padded
// with zeros. The padding is in `high`, so that no piece start is decided from its class run on
// (starts_from_masks) and a run that reaches it is the scalar scanner's (checked_end), as at a
// non-ASCII byte; the rules' reads of the text (contraction_length) read the copy.
inline Window text_end_window(const std::uint8_t* p, std::size_t avail, std::uint8_t* copy) {
#if defined(__AVX512BW__)
  // One store that the window's load takes whole: memcpy's narrower stores do not forward to a
  // 64-byte load, which would wait for them to reach the cache.
  _mm512_store_si512(copy, _mm512_maskz_loadu_epi8(_bzhi_u64(~std::uint64_t{0}, static_cast<unsigned>(avail)), p));
#else
  __builtin_memset(copy, 0, kWindow);
  __builtin_memcpy(copy, p, avail);
#endif
  Window w = classify(copy);
  w.high |= ~std::uint64_t{0} << avail;
  return w;
}

// What the fast path decided for the piece at window offset i.
constexpr std::size_t kScalar = 0;                          // needs Unicode: ask the scalar scanner
constexpr std::size_t kReload = static_cast<std::size_t>(-1);  // reached the window's end: reload

// A run that ends at the window's end may go on beyond it; one that ends before a non-ASCII
// byte may go on with non-ASCII characters of the same class.
inline std::size_t checked_end(const Window& w, std::size_t i, std::size_t end) {
  if (i + end >= kWindow) return kReload;
  return (w.high >> (i + end)) & 1 ? kScalar : end;
}

// The whitespace alternatives at offset i (a space byte there), all ASCII: up to the run's last
// newline (cl100k, o200k), else the run less its last byte unless that empties it. The byte
// after the run is ASCII and no space, so (?!\S) fails after the run.
inline std::size_t whitespace_end(const Window& w, std::size_t i, bool newline_rule) {
  const std::size_t e = run(w.space >> i);
  const std::size_t checked = checked_end(w, i, e);
  if (checked == kScalar || checked == kReload) return checked;
  const std::uint64_t newlines = (w.newline >> i) & ((std::uint64_t{1} << e) - 1);
  if (newline_rule && newlines) return 64 - static_cast<std::size_t>(__builtin_clzll(newlines));
  return e >= 2 ? e - 1 : e;
}

inline bool has(std::uint64_t mask, std::size_t i) { return (mask >> i) & 1; }

// ` ?[^\s\p{L}\p{N}]+` followed by [\r\n]* (cl100k) or [\r\n/]* (o200k), the punctuation run
// starting at offset i + from.
inline std::size_t punct_end(const Window& w, std::size_t i, std::size_t from, std::uint64_t tail) {
  const std::size_t e = from + run(w.punct() >> (i + from));
  const std::size_t checked = checked_end(w, i, e);
  if (checked == kScalar || checked == kReload) return checked;
  const std::size_t end = e + run(tail >> (i + e));
  return i + end >= kWindow ? kReload : end;
}

// Each *_piece function returns the length of the piece that starts at window offset i (byte
// p[0]), or kScalar, or kReload.

inline std::size_t cl100k_piece(const Window& w, std::size_t i, const std::uint8_t* p) {
  const std::uint8_t c = p[0];
  if (i + 1 >= kWindow) return kReload;  // every rule looks at the next byte
  if (c >= 0x80 || c == '\'') return kScalar;  // Unicode classes, or a possible contraction
  // [^\r\n\p{L}\p{N}]?\p{L}+
  const std::uint64_t letter = w.letter();
  if (has(letter, i)) return checked_end(w, i, run(letter >> i));
  if (!has(w.newline | w.digit, i) && has(letter, i + 1)) return checked_end(w, i, 1 + run(letter >> (i + 1)));
  // \p{N}{1,3}
  if (has(w.digit, i)) {
    const std::size_t e = run(w.digit >> i);
    return e >= 3 ? 3 : checked_end(w, i, e);
  }
  // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
  const std::uint64_t punct = w.punct();
  if (has(punct, i)) return punct_end(w, i, 0, w.newline);
  if (c == ' ' && has(punct, i + 1)) return punct_end(w, i, 1, w.newline);
  return whitespace_end(w, i, true);
}

// o200k's letter alternatives reduce, for ASCII, to: an optional prefix, an upper-case run, then
// a lower-case run; with no lower case after it, the upper-case run alone. A non-ASCII byte after
// the word (a letter or mark may continue it) or an apostrophe (a contraction suffix may follow)
// needs the scalar path.
inline std::size_t o200k_piece(const Window& w, std::size_t i, const std::uint8_t* p) {
  const std::uint8_t c = p[0];
  if (i + 1 >= kWindow) return kReload;  // every rule looks at the next byte
  if (c >= 0x80 || c == '\'') return kScalar;
  const std::uint64_t letter = w.letter();
  const bool word = has(letter, i);
  const bool prefixed_word = !word && !has(w.newline | w.digit, i) && has(letter, i + 1);
  if (word || prefixed_word) {
    const std::size_t start = prefixed_word ? 1 : 0;
    const std::size_t q = start + run(w.upper >> (i + start));
    if (i + q >= kWindow) return kReload;  // the upper-case run reaches the window's end
    const std::size_t end = checked_end(w, i, q + run(w.lower >> (i + q)));
    if (end == kScalar || end == kReload) return end;
    return p[end] == '\'' ? kScalar : end;
  }
  // \p{N}{1,3}
  if (has(w.digit, i)) {
    const std::size_t e = run(w.digit >> i);
    return e >= 3 ? 3 : checked_end(w, i, e);
  }
  // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  const std::uint64_t punct = w.punct();
  if (has(punct, i)) return punct_end(w, i, 0, w.newline | w.slash);
  if (c == ' ' && has(punct, i + 1)) return punct_end(w, i, 1, w.newline | w.slash);
  return whitespace_end(w, i, true);
}

// r50k: ` ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`; case-sensitive contractions first.
inline std::size_t r50k_piece(const Window& w, std::size_t i, const std::uint8_t* p) {
  const std::uint8_t c = p[0];
  if (i + 1 >= kWindow) return kReload;  // every rule looks at the next byte
  if (c >= 0x80 || c == '\'') return kScalar;
  const std::size_t start = c == ' ' && !has(w.space, i + 1) ? 1 : 0;
  if (start == 1 && has(w.high, i + 1)) return kScalar;
  const std::uint64_t letter = w.letter(), punct = w.punct();
  const std::uint64_t cls = has(letter, i + start) ? letter : has(w.digit, i + start) ? w.digit : punct;
  if (has(cls, i + start)) return checked_end(w, i, start + run(cls >> (i + start)));
  return whitespace_end(w, i, false);
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at p (an apostrophe): its length, or 0. Setting bit 5 lower-cases
// a letter and maps no other byte onto one.
inline std::size_t contraction_length(const std::uint8_t* p) {
  const std::uint8_t a = p[1] | 0x20, b = p[2] | 0x20;
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  return (a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l') ? 3 : 0;
}

// The piece starts of cl100k (or o200k) that the window at offset i decides, as bits relative to
// offset i: bit j set means a piece starts at offset i + j. Offset i itself is a piece start, so
// the pattern sees nothing before it; bit 0 is not reported. Every start is derived from class
// masks at once, with shifts standing for "the byte before" (x << 1) and "the byte after"
// (x >> 1); the rules below are the pattern's alternatives restated for ASCII text:
//   - a run of letters, digits, punctuation or whitespace starts a piece, except that
//     - a letter run takes the byte before it as its prefix ([^\r\n\p{L}\p{N}]?) when that
//       byte is non-newline whitespace, or a lone punctuation byte not preceded by a space;
//     - a punctuation run takes the space before it ( ?[^\s\p{L}\p{N}]+);
//     - newlines right after punctuation belong to its piece ([\r\n]*);
//   - a digit run is pieces of 3 digits but the last (\p{N}{1,3});
//   - a whitespace run of the form newlines, then other whitespace (others are left undecided),
//     is pieces of: its newlines (\s*[\r\n]+), the others but the last (\s+(?!\S)), and its
//     last byte, alone or as the prefix above;
//   - o200k only: an upper-case letter after a lower-case one starts a word, and a slash after a
//     newline (which [\r\n/]* may take) is left undecided;
//   - a contraction ('s 't 're 've 'm 'll 'd, any case) ends a piece: in cl100k it is a piece
//     of its own where its apostrophe starts one by the rules above; in o200k it ends the word
//     its apostrophe follows. An apostrophe is otherwise punctuation.
// A byte that is not ASCII, or an apostrophe too near the window's end to see its contraction,
// ends what the window decides, like the window's end: from the start of the class run before
// such a point on, the pieces may depend on what lies beyond, so no start from there is
// reported. `text_at(j)` is the text at offset i + j, read where an apostrophe may begin a
// contraction; the masks may also be a CharWindow's (below), whose offsets are characters.
template <bool kO200k, class TextAt>
inline std::uint64_t starts_from_masks(const Window& w, std::size_t i, TextAt text_at) {
  const std::uint64_t upper = w.upper >> i, lower = w.lower >> i, letter = w.letter() >> i;
  const std::uint64_t digit = w.digit >> i, space = w.space >> i, newline = w.newline >> i;
  const std::uint64_t blank = w.blank >> i, punct = w.punct() >> i, apostrophe = w.apostrophe >> i;
  const std::uint64_t other_space = space & ~newline;
  // Bits from 64 - i on are past the window; an apostrophe needs the two bytes after it and a
  // bit for the start after those.
  std::uint64_t undecided = w.high >> i | ~(~std::uint64_t{0} >> i) | (apostrophe & ~(~std::uint64_t{0} >> i >> 3)) |
                            (newline & other_space << 1);
  if constexpr (kO200k) undecided |= (w.slash >> i) & newline << 1;

  const std::uint64_t letter_runs = letter & ~(letter << 1);
  // A digit run's pieces start at its first digit and every third one after it. With `digits`
  // marking the ends of m digits in a row, a group start m bytes back is followed by another
  // here; each step doubles m, so five steps reach across the window.
  std::uint64_t digit_groups = digit & ~(digit << 1);
  // Without four digits in a row (most windows of text), every group is its run's first.
  if (digit & digit << 1 & digit << 2 & digit << 3) {
    for (std::uint64_t m = 3, digits = digit & digit << 1 & digit << 2; m < 64; digits &= digits << m, m *= 2)
      digit_groups |= digit_groups << m & digits;
  }
  const std::uint64_t punct_runs = punct & ~(punct << 1);
  const std::uint64_t punct_starts = punct_runs & ~(blank << 1);  // a space before one starts it
  // Adding the first newline after punctuation carries through that newline run, clearing it.
  const std::uint64_t after_punct = newline & ~(newline + (newline & punct << 1));
  const std::uint64_t spaces = space & ~after_punct;
  const std::uint64_t lone_punct_prefix = punct << 1 & ~(punct << 2) & ~(blank << 2);
  std::uint64_t starts = (letter_runs & ~(other_space << 1) & ~lone_punct_prefix) | digit_groups |
                         punct_starts | (spaces & ~(spaces << 1)) | (other_space & newline << 1) |
                         (other_space & other_space << 1 & ~(space >> 1));
  if constexpr (kO200k) starts |= upper & lower << 1;

  // Keep the starts before the last class run (or digit group) ahead of the first undecided byte.
  const std::uint64_t decided = undecided == 0 ? ~std::uint64_t{0} : (std::uint64_t{1} << __builtin_ctzll(undecided)) - 1;
  // Apostrophes are few: each that may begin a contraction is checked bytewise.
  const std::uint64_t contraction_at = kO200k ? apostrophe & letter << 1 : apostrophe & punct_starts;
  std::uint64_t contraction_letters = 0;
  for (std::uint64_t a = contraction_at & decided; a != 0; a &= a - 1) {
    const auto j = static_cast<std::size_t>(__builtin_ctzll(a));
    // o200k: a word takes one contraction; an apostrophe after one is punctuation.
    if (kO200k && has(contraction_letters << 1, j)) continue;
    // A contraction's letters are ASCII (a CharWindow leaves an apostrophe before any other
    // character undecided), so its length in bytes is its length in characters.
    if (const std::size_t length = contraction_length(text_at(j))) {
      // Its letters start nothing (o200k's case rule would split 'rE); in o200k neither does
      // its apostrophe.
      const std::uint64_t letters = ((std::uint64_t{1} << (length - 1)) - 1) << (j + 1);
      contraction_letters |= letters;
      starts &= ~(kO200k ? letters | std::uint64_t{1} << j : letters);
      starts |= std::uint64_t{1} << (j + length);
    }
  }
  const std::uint64_t runs = (letter_runs | digit_groups | punct_runs | (space & ~(space << 1))) & decided;
  if (runs == 0) return 0;
  return starts & ((std::uint64_t{1} << (63 - __builtin_clzll(runs))) - 1) & ~std::uint64_t{1};
}

// The starts a window of bytes decides from offset i; `p` is the text there.
template <bool kO200k>
inline std::uint64_t decided_starts(const Window& w, std::size_t i, const std::uint8_t* p) {
  return starts_from_masks<kO200k>(w, i, [p](std::size_t j) { return p + j; });
}

inline std::uint64_t no_decided_starts(const Window&, std::size_t, const std::uint8_t*) { return 0; }

// Windows that hold non-ASCII text, read by characters where the CPU has AVX512-VBMI2: their masks
// are squeezed and spread with BMI2's pext and pdep, fast on every CPU that has VBMI2 but
// microcoded (hundreds of cycles) on AMD's Zen 1 and 2, which an AVX2 build may meet. Elsewhere
// such windows decide only the ASCII before their first non-ASCII byte, and the scalar scanner
// takes the rest.
//
// A CharWindow is such a window's masks squeezed to one bit per character: bit k of each mask is
// the window's k-th character, whatever its length. The patterns' rules (starts_from_masks) are
// rules about characters (a letter run's one-character prefix, a punctuation run, three digits),
// so they hold over these masks, with each non-ASCII character in the class its Unicode
// properties give: \p{N} among the digits, White_Space among the spaces, and
//   - cl100k: \p{L} among the letters (in `lower`); everything else (marks, symbols, and each
//     byte of ill-formed UTF-8, which decodes as U+FFFD) punctuation;
//   - o200k: Lu and Lt in `upper`, and Ll, Lm, Lo and marks, which its lower-case class holds, in
//     `lower`; so an upper-case letter after any of those starts a word, which is right after Ll
//     only: after Lm, Lo or a mark, [Lu Lt Lm Lo M]* may take it into the word when lower case
//     follows. Those are left undecided, and so is a mark after punctuation, which a punctuation
//     run ([^\s\p{L}\p{N}]+) takes, where the rules would start a word at it.
// `high` holds what the rules must not decide: those, the bits past the window's characters, an
// apostrophe less than three characters from there (its contraction is not all in sight), and an
// apostrophe before a non-ASCII character (the scalar scanner's case folding reads 'ſ as 's).
struct NoCharWindows {  // windows read by bytes alone
  static constexpr bool kEnabled = false;
};

#if defined(__AVX512VBMI2__)
struct CharWindow {
  Window w;
  std::uint64_t lead;  // bit j set: the window's byte j starts a character
  std::size_t end;     // the byte after the window's last character: 64 to 67
};

template <bool kO200k>
struct CharWindows {
  static constexpr bool kEnabled = true;
  static constexpr std::uint8_t kBoth = unicode::kOtherLetter | unicode::kMark;  // o200k's Lm, Lo and M

  // The CharWindow of the window `bytes` read at p, with `avail` bytes readable there.
  // Characters of two and three bytes are decoded in vectors: each well-formed one's lead byte is
  // found by range checks on it and the two bytes after it (Unicode table 3-7, as
  // unicode::decode_utf8 checks them), the leads' bytes compressed to the front of three vectors
  // (at most 32 leads: each takes two bytes of the window or one and one past it), their code
  // points put together in 16-bit lanes and stored; each code point's class is then one scalar
  // load from the BMP table (a vector gather costs more on Zen 4: docs/performance-notes.md), and
  // the classes, loaded back as a vector, become masks in the leads' order, which pdep spreads to
  // their bytes. Lead bytes 0xF0-0xF4 are decoded one by one (a character beyond the BMP, or
  // ill-formed); every other byte 0x80-0xFF that starts no well-formed character decodes as
  // U+FFFD of one byte, punctuation, so it needs no bit at all.
  static CharWindow chars_of(const Window& bytes, const std::uint8_t* p, std::size_t avail) {
    // Lane j of b1 and b2: the bytes at j + 1 and j + 2, zero past the text (avail >= 64).
    auto readable_from = [avail](std::size_t offset) {
      const std::uint64_t all = ~std::uint64_t{0};
      return avail >= kWindow + offset ? all : _bzhi_u64(all, static_cast<unsigned>(avail - offset));
    };
    const __m512i b0 = _mm512_loadu_si512(p);
    const __m512i b1 = _mm512_maskz_loadu_epi8(readable_from(1), p + 1);
    const __m512i b2 = _mm512_maskz_loadu_epi8(readable_from(2), p + 2);
    auto in = [](__m512i b, int lo, int hi) {  // lo <= b <= hi, unsigned
      return _mm512_cmple_epu8_mask(_mm512_sub_epi8(b, _mm512_set1_epi8(static_cast<char>(lo))),
                                    _mm512_set1_epi8(static_cast<char>(hi - lo)));
    };
    const std::uint64_t next_continues = in(b1, 0x80, 0xBF), second_continues = in(b2, 0x80, 0xBF);
    const std::uint64_t two = in(b0, 0xC2, 0xDF) & next_continues;
    const std::uint64_t e0 = _mm512_cmpeq_epi8_mask(b0, _mm512_set1_epi8(static_cast<char>(0xE0)));
    const std::uint64_t ed = _mm512_cmpeq_epi8_mask(b0, _mm512_set1_epi8(static_cast<char>(0xED)));
    const std::uint64_t three = in(b0, 0xE0, 0xEF) & next_continues & second_continues &
                                ~(e0 & in(b1, 0x80, 0x9F)) & ~(ed & in(b1, 0xA0, 0xBF));
    const std::uint64_t leads = two | three;
    // Lane k of c0, c1, c2: the k-th lead's byte and the two after it, widened to 16 bits.
    auto front = [leads](__m512i b) {
      return _mm512_cvtepu8_epi16(_mm512_castsi512_si256(_mm512_maskz_compress_epi8(leads, b)));
    };
    const __m512i c0 = front(b0), c1 = front(b1), c2 = front(b2);
    const __m512i low6 = _mm512_set1_epi16(0x3F);
    const __m512i tail =
        _mm512_or_si512(_mm512_slli_epi16(_mm512_and_si512(c1, low6), 6), _mm512_and_si512(c2, low6));
    const __m512i of_two = _mm512_or_si512(_mm512_slli_epi16(_mm512_and_si512(c0, _mm512_set1_epi16(0x1F)), 6),
                                           _mm512_and_si512(c1, low6));
    const __m512i of_three = _mm512_or_si512(_mm512_slli_epi16(c0, 12), tail);
    const __mmask32 threes = _mm512_cmpge_epu16_mask(c0, _mm512_set1_epi16(0xE0));
    alignas(64) std::uint16_t code_points[32];
    _mm512_store_si512(code_points, _mm512_mask_blend_epi16(threes, of_two, of_three));
    const std::uint8_t* bmp = unicode::bmp_classes();
    alignas(64) std::uint8_t classes[64] = {};
    const auto decoded = static_cast<unsigned>(__builtin_popcountll(leads));
    for (unsigned k = 0; k < decoded; ++k) classes[k] = bmp[code_points[k]];
    const __m512i cls = _mm512_load_si512(classes);
    auto with = [&](std::uint8_t bits) {
      return _pdep_u64(_mm512_test_epi8_mask(cls, _mm512_set1_epi8(static_cast<char>(bits))), leads);
    };
    // Bytes where characters of the classes start.
    constexpr std::uint8_t kUpperBits = kO200k ? unicode::kUpper : 0;
    constexpr std::uint8_t kLowerBits = kO200k ? unicode::kLower | kBoth : unicode::kLetter;
    // o200k's classes only where o200k reads them: cl100k's windows skip their tests.
    std::uint64_t upper = kO200k ? with(kUpperBits) : 0, lower = with(kLowerBits);
    std::uint64_t both = kO200k ? with(kBoth) : 0, mark = kO200k ? with(unicode::kMark) : 0;
    std::uint64_t number = with(unicode::kNumber), space = with(unicode::kSpace);
    std::uint64_t inside = two << 1 | three << 1 | three << 2;
    // The bytes of the window's last character past its end; at most one character has them.
    std::size_t spill = (two >> 63) + 2 * (three >> 63) + (three >> 62 & 1);
    for (std::uint64_t four = in(b0, 0xF0, 0xF4); four != 0; four &= four - 1) {
      const auto j = static_cast<unsigned>(__builtin_ctzll(four));
      const unicode::ClassifiedChar c = unicode::classify_at(p + j, avail - j);
      const std::uint64_t bit = std::uint64_t{1} << j;
      upper |= (c.cls & kUpperBits) ? bit : 0;
      lower |= (c.cls & kLowerBits) ? bit : 0;
      both |= (c.cls & kBoth) ? bit : 0;
      mark |= (c.cls & unicode::kMark) ? bit : 0;
      number |= (c.cls & unicode::kNumber) ? bit : 0;
      space |= (c.cls & unicode::kSpace) ? bit : 0;
      inside |= ((std::uint64_t{1} << c.size) - 2) << j;
      if (j + c.size > kWindow) spill = j + c.size - kWindow;
    }
    const std::uint64_t lead = ~inside;
    auto squeeze = [lead](std::uint64_t mask) { return _pext_u64(mask, lead); };
    const auto count = static_cast<unsigned>(__builtin_popcountll(lead));
    const std::uint64_t beyond = count == 64 ? 0 : ~std::uint64_t{0} << count;
    CharWindow c{};
    c.lead = lead;
    c.end = kWindow + spill;
    c.w.upper = squeeze(bytes.upper | upper);
    c.w.lower = squeeze(bytes.lower | lower);
    c.w.digit = squeeze(bytes.digit | number);
    c.w.space = squeeze(bytes.space | space);
    c.w.newline = squeeze(bytes.newline);
    c.w.blank = squeeze(bytes.blank);
    c.w.slash = squeeze(bytes.slash);
    c.w.apostrophe = squeeze(bytes.apostrophe);
    c.w.high = beyond | (c.w.apostrophe & (beyond >> 3 | squeeze(bytes.high) >> 1));
    if constexpr (kO200k) {
      const std::uint64_t punct = c.w.punct() & ~beyond;
      c.w.high |= (c.w.upper & squeeze(both) << 1) | (squeeze(mark) & punct << 1);
    }
    return c;
  }

  // The character that starts at byte i of a window, and the byte where its character k starts:
  // the position of lead's k-th set bit, where pdep places the k-th bit of a mask.
  static std::size_t char_at(const CharWindow& c, std::size_t i) {
    return static_cast<std::size_t>(__builtin_popcountll(c.lead & ((std::uint64_t{1} << i) - 1)));
  }
  static std::size_t byte_of(const CharWindow& c, std::size_t k) {
    return static_cast<std::size_t>(__builtin_ctzll(_pdep_u64(std::uint64_t{1} << k, c.lead)));
  }

  // The starts decided from byte offset i (a character's first byte), as byte offsets from i;
  // `p` is the text at offset i.
  static std::uint64_t starts(const CharWindow& c, std::size_t i, const std::uint8_t* p) {
    const std::size_t k = char_at(c, i);
    const std::uint8_t* window = p - i;
    const std::uint64_t chars =
        starts_from_masks<kO200k>(c.w, k, [&](std::size_t j) { return window + byte_of(c, k + j); });
    return _pdep_u64(chars << k, c.lead) >> i;
  }

  // The window of ASCII bytes `bytes` as a CharWindow: a character a byte.
  static CharWindow of_ascii(const Window& bytes) { return {bytes, ~std::uint64_t{0}, kWindow}; }

  // Where a word stops in the masks w: at a character that is no letter, and in o200k at an
  // upper-case letter after one of its lower-case class. Whether it may go on past such a stop
  // (o200k): an apostrophe may add a contraction, and `high` marks an upper-case letter after Lm,
  // Lo or a mark, which the word may take.
  static std::uint64_t word_stops(const Window& w) {
    return kO200k ? ~w.letter() | (w.upper & w.lower << 1) : ~w.letter();
  }
  static bool uncertain_stop(const Window& w, std::size_t k) { return kO200k && has(w.apostrophe | w.high, k); }

  // What a run's visit to a window (follow) finds: the run's end, or one of these.
  static constexpr std::size_t kGoOn = 0;                               // the run goes past the window
  static constexpr std::size_t kGiveUp = static_cast<std::size_t>(-1);  // the scalar scanner must say

  // Follows a run that starts at character k of the window `c` read at text + base through the
  // windows after it, each read from the byte after the last character of the one before:
  // visit(window, at, from) looks at the characters of the window read at text + at from `from` on
  // and returns the run's end, kGoOn or kGiveUp; at_text_end() is the end of a run that reaches
  // the text's end. The text's last window is its last 64 bytes (it repeats characters already
  // seen: `from` skips them), read only where they are ASCII, for only there is every byte a
  // character's start. Returns the end, or 0 where the scalar scanner must say.
  template <class Visit, class AtTextEnd>
  static std::size_t follow(const CharWindow& c, std::size_t base, std::size_t k, const std::uint8_t* text,
                            std::size_t size, Visit visit, AtTextEnd at_text_end) {
    std::size_t end = visit(c, base, k);
    for (std::size_t at = base + c.end; end == kGoOn;) {
      if (at == size) return at_text_end();
      if (size - at < kWindow) {
        const std::size_t last = size - kWindow;
        const Window bytes = classify(text + last);
        if (bytes.high != 0) return 0;
        end = visit(of_ascii(bytes), last, at - last);
        if (end == kGoOn) return at_text_end();
        break;
      }
      const Window bytes = classify(text + at);
      const CharWindow w = bytes.high == 0 ? of_ascii(bytes) : chars_of(bytes, text + at, size - at);
      end = visit(w, at, 0);
      at += w.end;
    }
    return end == kGiveUp ? 0 : end;
  }

  // The end of the piece at byte i of the window `c` read at text + base where that piece is a
  // run that goes on past what the window decides (a window read by characters) or past the
  // window (a run of 64 bytes or more): Chinese and Japanese runs span hundreds of bytes, and a
  // megabyte of one letter, or of spaces, is a single piece. Followed window by window (follow)
  // where the piece is
  //   - a word: a letter run with or without its one-character prefix, [^\r\n\p{L}\p{N}]?, no
  //     apostrophe first (it may begin a contraction); it ends at its first stop (word_stops);
  //   - whitespace, two characters or more (so neither prefix rule takes its first): it ends after
  //     its last newline if it has one, else at the text's end, else before its last character;
  // as the scalar scanner follows them a character at a time. 0 for any other piece, where the
  // scalar scanner must say.
  static std::size_t run_end(const CharWindow& c, std::size_t i, const std::uint8_t* text, std::size_t size,
                             std::size_t base) {
    const std::uint64_t letter = c.w.letter();
    std::size_t k = char_at(c, i);
    const bool prefixed = !has(letter, k) && has(~(c.w.newline | letter | c.w.digit | c.w.apostrophe | c.w.high), k) &&
                          k + 1 < kWindow && has(letter, k + 1);
    if (has(letter, k) || prefixed) {
      k += prefixed;
      // Stops after the word's first character (the one before it is no part of the word). A
      // window's first character may stop the word on account of the one before it (o200k): the
      // scalar scanner says there.
      const auto visit_word = [](const CharWindow& w, std::size_t at, std::size_t from) {
        if (kO200k && from == 0 && has(w.w.upper, 0)) return kGiveUp;
        const std::uint64_t stops = word_stops(w.w) & (~std::uint64_t{0} << from);
        const std::size_t stop = stops == 0 ? kWindow : static_cast<std::size_t>(__builtin_ctzll(stops));
        if (stop >= static_cast<std::size_t>(__builtin_popcountll(w.lead))) return kGoOn;
        return uncertain_stop(w.w, stop) ? kGiveUp : at + byte_of(w, stop);
      };
      if (k + 1 >= kWindow) return 0;
      return follow(c, base, k + 1, text, size, visit_word, [size] { return size; });
    }
    if (!has(c.w.space, k) || k + 1 >= kWindow || !has(c.w.space, k + 1)) return 0;
    std::size_t after_newline = 0, last_start = 0;  // after the run's last newline; its last character
    const auto visit_space = [&](const CharWindow& w, std::size_t at, std::size_t from) {
      const std::uint64_t stops = ~w.w.space & (~std::uint64_t{0} << from);
      const std::size_t count = static_cast<std::size_t>(__builtin_popcountll(w.lead));
      std::size_t stop = stops == 0 ? kWindow : static_cast<std::size_t>(__builtin_ctzll(stops));
      if (stop > count) stop = count;
      const std::uint64_t before_stop = stop == kWindow ? ~std::uint64_t{0} : (std::uint64_t{1} << stop) - 1;
      const std::uint64_t newlines = w.w.newline & (~std::uint64_t{0} << from) & before_stop;
      if (newlines != 0) after_newline = at + byte_of(w, 63 - static_cast<std::size_t>(__builtin_clzll(newlines))) + 1;
      if (stop > from) last_start = at + byte_of(w, stop - 1);
      if (stop == count) return kGoOn;
      return after_newline != 0 ? after_newline : last_start;
    };
    return follow(c, base, k, text, size, visit_space, [&] { return after_newline != 0 ? after_newline : size; });
  }
};
using Cl100kCharWindows = CharWindows<false>;
using O200kCharWindows = CharWindows<true>;
#else
using Cl100kCharWindows = NoCharWindows;
using O200kCharWindows = NoCharWindows;
#endif

// Writes from + j for every set bit j of `starts`, in order, to `ends`; returns how many. A
// window's starts are a dozen or so, a different number each time: a loop over them costs a
// mispredicted exit a window. With AVX512-VBMI2, the set bits' offsets compressed as bytes to the
// front of one vector, then widened eight at a time to 64-bit lanes, each eight stored under a
// mask of the starts left (so nothing past the last start is written); the first three stores,
// 24 starts, are made whatever the count, so only a window denser than that (digits, one-letter
// pieces) branches on it. With AVX-512BW alone, eight bits at a time: the set ones' lanes of a
// vector of from + 8k .. from + 8k + 7 compressed to its front and stored under a mask of as many
// lanes.
#if defined(__AVX512VBMI2__)
struct ByteOffsets {
  std::uint8_t at[64];
};
constexpr ByteOffsets kByteOffsets = [] {
  ByteOffsets offsets{};
  for (unsigned i = 0; i < 64; ++i) offsets.at[i] = static_cast<std::uint8_t>(i);
  return offsets;
}();
#endif

inline std::size_t write_starts(std::uint64_t starts, std::size_t from, std::size_t* ends) {
  static_assert(sizeof(std::size_t) == 8, "a start is a 64-bit lane");
#if defined(__AVX512VBMI2__)
  const auto count = static_cast<unsigned>(__builtin_popcountll(starts));
  __m512i offsets = _mm512_maskz_compress_epi8(starts, _mm512_loadu_si512(kByteOffsets.at));
  const __m512i first = _mm512_set1_epi64(static_cast<long long>(from));
  for (unsigned k = 0; k < 24 || k < count; k += 8) {
    const auto lanes = static_cast<__mmask8>(_bzhi_u32(0xFF, count > k ? count - k : 0));
    _mm512_mask_storeu_epi64(ends + k, lanes, _mm512_add_epi64(first, _mm512_cvtepu8_epi64(_mm512_castsi512_si128(offsets))));
    offsets = _mm512_alignr_epi64(offsets, offsets, 1);  // the next eight offsets to the low lanes
  }
  return count;
#elif defined(__AVX512BW__)
  std::size_t n = 0;
  __m512i at = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(from)), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
  for (std::size_t k = 0; k < 64; k += 8) {
    const auto chunk = static_cast<__mmask8>(starts >> k);
    const auto count = static_cast<unsigned>(__builtin_popcount(chunk));
    _mm512_mask_storeu_epi64(ends + n, static_cast<__mmask8>((1u << count) - 1), _mm512_maskz_compress_epi64(chunk, at));
    n += count;
    at = _mm512_add_epi64(at, _mm512_set1_epi64(8));
  }
  return n;
#else
  std::size_t n = 0;
  for (; starts != 0; starts &= starts - 1) ends[n++] = from + static_cast<std::size_t>(__builtin_ctzll(starts));
  return n;
#endif
}

// The pieces that the window classified at `base` gives from `pos` on, up to `max_pieces` in
// all: `decide(i)` is the starts its masks decide from window offset i (a byte offset), and a
// piece they do not decide is Piece's, else `run_end(i)`'s where that is not 0, else Scalar's.
// Returns when the window is spent or the batch is full. How the window was read (WindowRead):
//   by_bytes  a piece the masks leave (text in another script, where only the scalar scanner can
//             end one) goes to the scalar scanner, and the ones after it likewise;
//   by_chars  the window is read by characters (CharWindows), so a piece they leave is one among
//             others that the masks decide;
//   text_end  the window is the text's last (fewer than 64 bytes, see text_end_window), which no
//             later window sees further than, so the pieces after the starts it decides are taken
//             from it too (read by bytes otherwise).
enum class WindowRead { by_bytes, by_chars, text_end };
template <std::size_t (*Piece)(const Window&, std::size_t, const std::uint8_t*),
          std::size_t (*Scalar)(const std::uint8_t*, std::size_t, std::size_t), class Decide, class RunEnd>
[[gnu::always_inline]] inline void scan_window(const Window& w, Decide decide, RunEnd run_end, WindowRead read,
                                               const std::uint8_t* text, std::size_t size, std::size_t base,
                                               std::size_t& pos, std::size_t* ends, std::size_t& n,
                                               std::size_t max_pieces) {
  const bool at_text_end = read == WindowRead::text_end;
  const std::size_t window_end = at_text_end ? size - base : kWindow;
  while (n < max_pieces && pos - base < window_end) {
    const std::size_t i = pos - base;
    // Every piece the masks decide at once; the last start found begins a piece whose end
    // lies in what the window does not decide, so a window is classified from there.
    if (std::uint64_t starts = decide(i)) {
      // Only as many as the batch has room for: fewer than all only in a batch's last window.
      if (const std::size_t room = max_pieces - n; static_cast<std::size_t>(__builtin_popcountll(starts)) > room) {
        std::uint64_t beyond = starts;
        for (std::size_t k = 0; k < room; ++k) beyond &= beyond - 1;
        starts ^= beyond;
      }
      // The last start, where the next window is classified from, comes straight from the
      // mask, so that the next window's load waits for no store.
      n += write_starts(starts, pos, ends + n);
      pos += 63 - static_cast<std::size_t>(__builtin_clzll(starts));
      if (at_text_end) continue;
      return;
    }
    // Otherwise one piece by the rules of the pattern that looks at it.
    const std::size_t len = Piece(w, i, text + pos);
    if (len == kReload && i > 0) return;  // classify a window that starts at pos
    if (len != kScalar && len != kReload) {
      pos = ends[n++] = pos + len;
      continue;
    }
    // A run of 64 bytes or more (kReload at the window's start), or in a window read by
    // characters a piece that needs Unicode: followed through the windows after this one where
    // run_end can, else the scalar scanner's.
    if (len == kReload || read == WindowRead::by_chars) {
      const std::size_t end = run_end(i);
      pos = ends[n++] = end != 0 ? end : Scalar(text, size, pos);
      continue;
    }
    // Text in another script: pieces that start with a non-ASCII byte, or with a space before
    // one, go straight to the scalar scanner, which alone can end them in a window read by
    // bytes. Through the window, each cost the masks' work for nothing first: 34% more
    // instructions than the serial encoder on Hindi, 15% on Arabic (5% and 4% this way); ASCII
    // text never gets here.
    do pos = ends[n++] = Scalar(text, size, pos);
    while (n < max_pieces && size - pos >= 2 && (text[pos] >= 0x80 || (text[pos] == ' ' && text[pos + 1] >= 0x80)));
  }
}

// The pieces of the text's last bytes from `pos` on (fewer than 64), `n` of the batch written:
// all of them, or as many as the batch has room for. Out of line: inlined, it made the loop over
// whole windows longer.
template <std::uint64_t (*Decided)(const Window&, std::size_t, const std::uint8_t*),
          std::size_t (*Piece)(const Window&, std::size_t, const std::uint8_t*),
          std::size_t (*Scalar)(const std::uint8_t*, std::size_t, std::size_t)>
[[gnu::noinline]] std::size_t scan_text_end(const std::uint8_t* text, std::size_t size, std::size_t pos,
                                            std::size_t* ends, std::size_t n, std::size_t max_pieces) {
  alignas(64) std::uint8_t copy[kWindow];
  const std::size_t base = pos;
  const Window w = text_end_window(text + base, size - base, copy);
  scan_window<Piece, Scalar>(
      w, [&](std::size_t i) { return Decided(w, i, copy + i); }, [](std::size_t) { return std::size_t{0}; },
      WindowRead::text_end, text, size, base, pos, ends, n, max_pieces);
  return n;
}

template <std::uint64_t (*Decided)(const Window&, std::size_t, const std::uint8_t*),
          std::size_t (*Piece)(const Window&, std::size_t, const std::uint8_t*),
          std::size_t (*Scalar)(const std::uint8_t*, std::size_t, std::size_t), class Chars = NoCharWindows>
std::size_t scan_pieces(const std::uint8_t* text, std::size_t size, std::size_t pos, std::size_t* ends,
                        std::size_t max_pieces) {
  std::size_t n = 0;
  while (n < max_pieces && pos < size) {
    if (size - pos < kWindow) return scan_text_end<Decided, Piece, Scalar>(text, size, pos, ends, n, max_pieces);
    const std::size_t base = pos;
    const Window w = classify(text + base);
    if constexpr (Chars::kEnabled) {
      if (w.high != 0) {
        const auto chars = Chars::chars_of(w, text + base, size - base);
        scan_window<Piece, Scalar>(
            w, [&](std::size_t i) { return Chars::starts(chars, i, text + base + i); },
            [&](std::size_t i) { return Chars::run_end(chars, i, text, size, base); }, WindowRead::by_chars, text,
            size, base, pos, ends, n, max_pieces);
        continue;
      }
    }
    // Where the pattern has character windows, this window is all ASCII, a character a byte, and
    // its runs of 64 bytes or more are followed as theirs are.
    const auto run_end = [&](std::size_t i) {
      if constexpr (Chars::kEnabled)
        return Chars::run_end(Chars::of_ascii(w), i, text, size, base);
      else
        return std::size_t{0};
    };
    scan_window<Piece, Scalar>(
        w, [&](std::size_t i) { return Decided(w, i, text + base + i); }, run_end, WindowRead::by_bytes, text, size,
        base, pos, ends, n, max_pieces);
  }
  return n;
}

}  // namespace

std::size_t scan_pieces_r50k(const std::uint8_t* text, std::size_t size, std::size_t pos, std::size_t* ends,
                             std::size_t max_pieces) {
  return scan_pieces<no_decided_starts, r50k_piece, tokenizer::scan_r50k>(text, size, pos, ends, max_pieces);
}
std::size_t scan_pieces_cl100k(const std::uint8_t* text, std::size_t size, std::size_t pos, std::size_t* ends,
                               std::size_t max_pieces) {
  return scan_pieces<decided_starts<false>, cl100k_piece, tokenizer::scan_cl100k, Cl100kCharWindows>(
      text, size, pos, ends, max_pieces);
}
std::size_t scan_pieces_o200k(const std::uint8_t* text, std::size_t size, std::size_t pos, std::size_t* ends,
                              std::size_t max_pieces) {
  return scan_pieces<decided_starts<true>, o200k_piece, tokenizer::scan_o200k, O200kCharWindows>(text, size, pos, ends,
                                                                                                max_pieces);
}

}  // namespace tokenizer::simd::TOKENIZER_SIMD_NAMESPACE
