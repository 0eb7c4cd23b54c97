// The body of a per-ISA piece scanner. Included by piece_scan_<isa>.cpp after defining
//   TOKENIZER_SIMD_ARCH       the xsimd architecture (xsimd::avx512bw, xsimd::avx2, xsimd::sse2)
//   TOKENIZER_SIMD_NAMESPACE  the namespace its entry points live in
// and compiled with that ISA's flags. Everything here has internal linkage or an ISA-specific
// name, and no standard-library inline function is used, so no function compiled for a wider
// ISA can be chosen by the linker for code that runs on a narrower one.

#include <xsimd/xsimd.hpp>

#include "piece_batch_scanner.hpp"
#include "tokenizer/piece_scanners.hpp"

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
  std::uint64_t upper, lower, digit, space, newline, slash, high;
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
    w.space |= (in('\t', '\r') | bits(b == Bytes(' '))) << k;  // \t \n \v \f \r and space
    w.newline |= (bits(b == Bytes('\n')) | bits(b == Bytes('\r'))) << k;
    w.slash |= bits(b == Bytes('/')) << k;
    w.high |= in(0x80, 0xFF) << k;
  }
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

template <std::size_t (*Piece)(const Window&, std::size_t, const std::uint8_t*),
          std::size_t (*Scalar)(const std::uint8_t*, std::size_t, std::size_t)>
std::size_t scan_pieces(const std::uint8_t* text, std::size_t size, std::size_t pos, std::size_t* ends,
                        std::size_t max_pieces) {
  std::size_t n = 0;
  while (n < max_pieces && pos < size) {
    if (size - pos < kWindow) {  // the tail: no full window to load
      pos = ends[n++] = Scalar(text, size, pos);
      continue;
    }
    const std::size_t base = pos;
    const Window w = classify(text + base);
    while (n < max_pieces && pos - base < kWindow) {
      const std::size_t i = pos - base;
      std::size_t len = Piece(w, i, text + pos);
      if (len == kReload) {
        if (i > 0) break;           // classify a window that starts at pos
        len = kScalar;              // a run of 64 bytes or more
      }
      pos = ends[n++] = len == kScalar ? Scalar(text, size, pos) : pos + len;
    }
  }
  return n;
}

}  // namespace

std::size_t scan_pieces_r50k(const std::uint8_t* text, std::size_t size, std::size_t pos, std::size_t* ends,
                             std::size_t max_pieces) {
  return scan_pieces<r50k_piece, tokenizer::scan_r50k>(text, size, pos, ends, max_pieces);
}
std::size_t scan_pieces_cl100k(const std::uint8_t* text, std::size_t size, std::size_t pos, std::size_t* ends,
                               std::size_t max_pieces) {
  return scan_pieces<cl100k_piece, tokenizer::scan_cl100k>(text, size, pos, ends, max_pieces);
}
std::size_t scan_pieces_o200k(const std::uint8_t* text, std::size_t size, std::size_t pos, std::size_t* ends,
                              std::size_t max_pieces) {
  return scan_pieces<o200k_piece, tokenizer::scan_o200k>(text, size, pos, ends, max_pieces);
}

}  // namespace tokenizer::simd::TOKENIZER_SIMD_NAMESPACE
