// The body of a per-ISA flash kernel. Included by flash_kernel_<isa>.cpp after defining
//   ATTENTION_SIMD_ARCH        the xsimd architecture (xsimd::avx512f, xsimd::fma3<xsimd::avx2>, xsimd::sse2)
//   ATTENTION_SIMD_NAMESPACE   the namespace its kFlashKernels lives in
//   ATTENTION_SIMD_BLOCK_ROWS  rows of a register block (see kBlockRows)
//   ATTENTION_SIMD_KEY_TILE    keys per tile (see kKeyTile)
//   ATTENTION_SIMD_TILES       (amxbf16 only) the bfloat16 table is tile_kernel.inl's, and the
//                              product probe takes AMX tiles
// and compiled with that ISA's flags. Everything here has internal linkage or an ISA-specific
// name, and no standard-library inline function is used, so no function compiled for a wider
// ISA can be chosen by the linker for code that runs on a narrower one.
//
// Algorithm (FlashAttention-2 on a CPU). A task takes kQueryTile query rows and walks the keys in
// tiles of kKeyTile; per key tile it computes the transposed scores S^T = K Q^T, masks them,
// updates each row's running max and sum (online softmax in base 2) and adds P V into its output
// rows. Both products are register-blocked like a GEMM microkernel: kBlockRows rows of the left
// operand broadcast one element at a time against kBlockVectors vectors of the right one.
//  - S^T: the left rows are keys, read in place from K; the right operand is the query tile,
//    packed once per task d-major in groups of kBlockColumns queries and scaled by
//    scale * log2(e). So K needs no packing, and a score row (one key) holds kQueryTile queries:
//    the softmax runs down columns, vertically, with no horizontal reduction.
//  - P V: the left rows are queries, whose weights lie contiguous in each score row; the right
//    operand is V in place, kBlockColumns columns at a time.
// Neither K nor V is copied (but for V's columns past its last whole vector, a tile at a time),
// so the workspace is a small scratch per thread.
// Keys no row of a block may see are not computed, so causal work above the diagonal is skipped
// per group of rows and per block of keys, and only keys between a group's first and last
// row's limits are masked.
//
// bfloat16 Q, K, V and O (Products below), scores, softmax and sums in float:
//  - widened_bfloat16, every ISA: each key tile of K and V widened to float in scratch (Q as it
//    is packed), then the float products above;
//  - bfloat16_pairs, AVX512-BF16: vdpbf16ps multiplies 16 pairs of bfloat16 and adds each pair's
//    two products to a float lane, twice the products of a float FMA. Both operands' pairs run
//    along the summed index. For S^T, pairs of head dimensions: a key row's two adjacent
//    elements, broadcast as one 32-bit word, against the query tile packed as words of the same
//    two dimensions of one query. For P V, pairs of keys: a row's two weights (rounded to
//    bfloat16, as FlashAttention rounds P) against the tile of V packed with its rows
//    interleaved two by two, a column's two values per word.

#include <xsimd/xsimd.hpp>

#include <cstdint>
#include <type_traits>

#include "bfloat16_lanes.hpp"
#include "flash_kernels.hpp"

namespace attention::simd::ATTENTION_SIMD_NAMESPACE {

namespace {

using Arch = ATTENTION_SIMD_ARCH;
using Floats = xsimd::batch<float, Arch>;
using Bits = xsimd::batch<std::int32_t, Arch>;

constexpr std::size_t kWidth = Floats::size;
// A register block is kBlockRows x kBlockVectors accumulators, plus kBlockVectors loaded vectors
// and one broadcast: 6 x 2 + 3 = 15 of the 16 registers of AVX2 and SSE2, 12 x 2 + 3 of AVX-512's 32.
constexpr std::size_t kBlockRows = ATTENTION_SIMD_BLOCK_ROWS;
constexpr std::size_t kBlockVectors = 2;
constexpr std::size_t kBlockColumns = kBlockVectors * kWidth;

// How a kernel multiplies its operands (see the top of this file).
enum class Products { floats, widened_bfloat16, bfloat16_pairs };
template <Products P>
using ElementOf = std::conditional_t<P == Products::floats, float, bfloat16>;

// a * b + c, fused. The branch is chosen by the flags this file is compiled with: xsimd 8.1 has no
// AVX-512 fma, and its generic one is a multiply and an add.
inline Floats multiply_add(Floats a, Floats b, Floats c) {
#if defined(__AVX512F__)
  return _mm512_fmadd_ps(a, b, c);
#else
  return xsimd::fma(a, b, c);
#endif
}

constexpr std::size_t gcd(std::size_t a, std::size_t b) { return b == 0 ? a : gcd(b, a % b); }
constexpr std::size_t smaller(std::size_t a, std::size_t b) { return a < b ? a : b; }
constexpr std::size_t larger(std::size_t a, std::size_t b) { return a > b ? a : b; }
constexpr std::size_t round_up(std::size_t n, std::size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// Query rows are split both into groups of kBlockColumns (scores) and blocks of kBlockRows
// (P V), so a tile is a multiple of both: 96 rows for every ISA here.
constexpr std::size_t kQueryTile =
    round_up(96, kBlockRows / gcd(kBlockRows, kBlockColumns) * kBlockColumns);
// Keys per tile, a multiple of kBlockRows. The tile of K, while every group of queries uses it,
// and the tile of V, while every block of query rows does, should stay in L1 beside the group
// or the block's weights and outputs: at head_dim 128, 36 keys are 18 KiB. Each ISA's is
// measured on the machines it ran on: for AVX2 on AMD EPYC (32 KiB L1), 36 beat 48 (most at
// short sequences and while the other core was busy) and 24 (at head_dim 64); for AVX-512 on an
// Intel Xeon (48 KiB L1), 48 beat 36 by 2-7% at every shape up to S = 1024, 24 lost, 60 tied.
// A longer tile also spreads the load and store of each block's outputs over more keys.
constexpr std::size_t kKeyTile = ATTENTION_SIMD_KEY_TILE;
static_assert(kKeyTile % kBlockRows == 0);

constexpr float kLog2e = 1.44269504088896340736f;
constexpr float kMinusInfinity = -__builtin_inff();
// Regions of scratch start on 64-byte boundaries.
constexpr std::size_t kAlignFloats = 16;

// Offsets of the regions of a thread's scratch, from the shape and the products alone. Regions
// a kind of products does not use are empty.
struct Layout {
  std::size_t value_columns;  // value_dim rounded up to kWidth
  std::size_t queries;        // the query tile, packed: groups of head_dim x kBlockColumns
  std::size_t scores;         // kKeyTile x kQueryTile: S^T of the key tile, then the weights P^T
  std::size_t outputs;        // kQueryTile x value_columns: unnormalised output rows
  std::size_t row_max;        // kQueryTile running maxima (base-2 scores)
  std::size_t row_sum;        // kQueryTile running sums of weights
  std::size_t rescale;        // kQueryTile factors exp2(old max - new max) of the current key tile
  std::size_t zero_key;       // head_dim zeros: the keys of a block past seq_k
  std::size_t value_tail;     // floats: kKeyTile x kWidth, V columns past the last whole vector, zero-padded
  std::size_t key_tile;       // widened: kKeyTile x head_dim, the tile of K
  std::size_t value_tile;     // widened: kKeyTile x value_columns floats, the tile of V zero-padded;
                              // pairs: kKeyTile / 2 x value_columns words, its rows interleaved
  std::size_t weight_pairs;   // pairs: kKeyTile / 2 x kQueryTile words, P^T's rows interleaved
  std::size_t thread_floats;
};

template <Products P>
Layout layout_of(const AttentionShape& s) {
  static_assert(kKeyTile % 2 == 0, "a key tile is whole pairs of keys");
  Layout l{};
  l.value_columns = round_up(s.value_dim, kWidth);
  std::size_t at = 0;
  const auto region = [&at](std::size_t floats) {
    const std::size_t start = at;
    at += round_up(floats, kAlignFloats);
    return start;
  };
  const bool floats = P == Products::floats, widened = P == Products::widened_bfloat16,
             pairs = P == Products::bfloat16_pairs;
  l.queries = region(kQueryTile * s.head_dim);
  l.scores = region(kKeyTile * kQueryTile);
  l.outputs = region(kQueryTile * l.value_columns);
  l.row_max = region(kQueryTile);
  l.row_sum = region(kQueryTile);
  l.rescale = region(kQueryTile);
  l.zero_key = region(s.head_dim);
  l.value_tail = region(floats ? kKeyTile * kWidth : 0);
  l.key_tile = region(widened ? kKeyTile * s.head_dim : 0);
  l.value_tile = region(widened ? kKeyTile * l.value_columns : pairs ? kKeyTile / 2 * l.value_columns : 0);
  l.weight_pairs = region(pairs ? kKeyTile / 2 * kQueryTile : 0);
  l.thread_floats = at;
  return l;
}

template <Products P>
std::size_t thread_floats(const AttentionShape& shape) {
  return layout_of<P>(shape).thread_floats;
}

// The step of score_block and score_pairs that does nothing: flash's.
struct NoStep {
  void operator()(std::size_t) const {}
};

// The key rows of a score block, keys(i) for i < kKeys.
// kBlockRows rows anywhere, by pointer (the rows past the keys' end point at zeros).
template <class Element>
struct KeyPointers {
  static constexpr std::size_t kKeys = kBlockRows;
  const Element* const (&rows)[kBlockRows];
  [[gnu::always_inline]] const Element* operator()(std::size_t i) const { return rows[i]; }
};
// Keys consecutive rows of RowLength elements from `first`: each row's element of a dimension is
// then at a constant distance from one pointer, so the loop addresses them all from one
// register, where kBlockRows pointers outnumber the general registers (GCC kept some on the
// stack and in vector registers and moved them out before their FMAs: a quarter of a decode lane
// task's score loop, whose one vector of rows gives each pointer a single FMA).
template <class Element, std::size_t RowLength, std::size_t Keys>
struct ConsecutiveKeys {
  static constexpr std::size_t kKeys = Keys;
  static constexpr std::size_t kRowLength = RowLength;
  const Element* first;
  [[gnu::always_inline]] const Element* operator()(std::size_t i) const { return first + i * RowLength; }
};

// scores[i][x] (rows kQueryTile apart) = keys(i) . query x of `queries`, a packed group
// (head_dim rows of Vectors * kWidth: kBlockColumns for flash; one vector for a decode task of
// kWidth rows); step(d) is called at the start of each dimension's step (a decode task's
// prefetches). Always inlined, as update_softmax and fold_keys: with the decode task as a
// second caller GCC made them functions of their own, and flash ran 1-2% more instructions.
template <std::size_t Vectors = kBlockVectors, class Keys, class Step = NoStep>
[[gnu::always_inline]] inline void score_block(const Keys& keys, const float* queries, std::size_t head_dim,
                                               float* scores, const Step& step = {}) {
  constexpr std::size_t kKeys = Keys::kKeys;
  Floats acc[kKeys][Vectors];
#pragma GCC unroll 16
  for (std::size_t i = 0; i < kKeys; ++i)
#pragma GCC unroll 4
    for (std::size_t x = 0; x < Vectors; ++x) acc[i][x] = Floats(0.0f);
  // Unrolled by 2, as is the key loop of accumulate_block: half the loop's counter and branch
  // work, measured about 2% faster.
#pragma GCC unroll 2
  for (std::size_t d = 0; d < head_dim; ++d, queries += Vectors * kWidth) {
    step(d);
    Floats q[Vectors];
#pragma GCC unroll 4
    for (std::size_t x = 0; x < Vectors; ++x) q[x] = Floats::load_aligned(queries + x * kWidth);
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kKeys; ++i) {
      const Floats k(keys(i)[d]);
#pragma GCC unroll 4
      for (std::size_t x = 0; x < Vectors; ++x) acc[i][x] = multiply_add(k, q[x], acc[i][x]);
    }
  }
#pragma GCC unroll 16
  for (std::size_t i = 0; i < kKeys; ++i)
#pragma GCC unroll 4
    for (std::size_t x = 0; x < Vectors; ++x) acc[i][x].store_aligned(scores + i * kQueryTile + x * kWidth);
}

// A block's output rows as accumulate_into finishes them: times `factors`, to the first `rows`
// rows of `finished`, `stride` apart. Float outputs take whole vectors; bfloat16 ones the first
// `columns` columns of the block's vectors.
struct Finish {
  const float* factors;  // 1 / the row's sum, or 0 for a row that saw no key
  std::size_t stride;
  std::size_t rows;
  std::size_t columns = 0;
};

[[gnu::always_inline]] inline void store_finished(Floats row, float* to, std::size_t) { row.store_unaligned(to); }
// The row rounded in vectors (bfloat16_lanes): accumulate_into's finishing loop is unrolled, twelve
// rows of two vectors, and with a scalar conversion a lane it tripled the widened kernels' code.
[[gnu::always_inline]] inline void store_finished(Floats row, bfloat16* to, std::size_t columns) {
  alignas(64) std::int32_t lanes[kWidth];
  bfloat16_lanes(row).store_aligned(lanes);
  for (std::size_t c = 0; c < smaller(columns, kWidth); ++c) to[c].bits = static_cast<std::uint16_t>(lanes[c]);
}

// For the kBlockRows rows r of a block and columns [0, Vectors * kWidth): rescale[r] * outputs[r]
// (rows `output_stride` apart) plus the products `add_products` adds into the accumulators; on
// the first key tile (`first_tile`) the outputs are neither read nor zeroed first. The sums go
// back to `outputs`; or, on the tile that finishes the rows (`finished` not null), as `finish` says.
template <std::size_t Vectors, class Output, class AddProducts>
[[gnu::always_inline]] inline void accumulate_into(AddProducts add_products, float* outputs, std::size_t output_stride,
                                                   const float* rescale, bool first_tile,
                                                   std::type_identity_t<Output>* finished, const Finish& finish) {
  Floats acc[kBlockRows][Vectors];
#pragma GCC unroll 16
  for (std::size_t r = 0; r < kBlockRows; ++r) {
    const Floats factor(rescale[r]);
#pragma GCC unroll 4
    for (std::size_t x = 0; x < Vectors; ++x)
      acc[r][x] = first_tile ? Floats(0.0f) : Floats::load_aligned(outputs + r * output_stride + x * kWidth) * factor;
  }
  add_products(acc);
  if (finished == nullptr) {
#pragma GCC unroll 16
    for (std::size_t r = 0; r < kBlockRows; ++r)
#pragma GCC unroll 4
      for (std::size_t x = 0; x < Vectors; ++x) acc[r][x].store_aligned(outputs + r * output_stride + x * kWidth);
    return;
  }
  // Unrolled, as every loop over acc: a row index known only at run time would make GCC keep acc
  // in memory for the whole function (it did for bfloat16 outputs, and flash_bf16's P V loop then
  // loaded and stored its accumulators at every key).
#pragma GCC unroll 16
  for (std::size_t r = 0; r < kBlockRows; ++r) {
    if (r == finish.rows) break;
    // A row that saw no key gets zeros, even where 0 times its sums would not be 0 (infinities).
    const float factor = finish.factors[r];
#pragma GCC unroll 4
    for (std::size_t x = 0; x < Vectors; ++x)
      store_finished(factor == 0.0f ? Floats(0.0f) : acc[r][x] * Floats(factor),
                     finished + r * finish.stride + x * kWidth, finish.columns - x * kWidth);
  }
}

// accumulate_into with the float products: the sums over j < keys of weights[j][r] (rows
// kQueryTile apart) * values[j] (rows `value_stride` apart).
template <std::size_t Vectors, class Output = float>
void accumulate_block(const float* weights, std::size_t keys, const float* values, std::size_t value_stride,
                      float* outputs, std::size_t output_stride, const float* rescale, bool first_tile,
                      std::type_identity_t<Output>* finished, const Finish& finish) {
  const auto add_products = [&](Floats(&acc)[kBlockRows][Vectors]) {
#pragma GCC unroll 2
    for (std::size_t j = 0; j < keys; ++j, weights += kQueryTile, values += value_stride) {
      Floats v[Vectors];
#pragma GCC unroll 4
      for (std::size_t x = 0; x < Vectors; ++x) v[x] = Floats::load_unaligned(values + x * kWidth);
#pragma GCC unroll 16
      for (std::size_t r = 0; r < kBlockRows; ++r) {
        const Floats w(weights[r]);
#pragma GCC unroll 4
        for (std::size_t x = 0; x < Vectors; ++x) acc[r][x] = multiply_add(w, v[x], acc[r][x]);
      }
    }
  };
  accumulate_into<Vectors, Output>(add_products, outputs, output_stride, rescale, first_tile, finished, finish);
}

// How closely exp2_nonpositive approximates: float32, relative error below 2e-7, for what stays in
// float (sums, factors, and the weights of the float kernels); bfloat16, below 1.4e-4, a fourteenth
// of bfloat16's half-ulp (2^-9), for weights rounded to bfloat16 next, two multiply-adds fewer.
enum class Exp2Precision { float32, bfloat16 };

// 2^x for x <= 0, within Precision; exactly 0 for x < -126.5 and for -inf; NaN for NaN, which is
// how a NaN score reaches its row's sum and output.
// 2^x = 2^n * 2^f with n = round(x) and f = x - n in [-0.5, 0.5]. Adding 1.5 * 2^23 + 127 puts
// x + 127 rounded to an integer in the low mantissa bits (the sum lies in [2^23, 2^24), where the
// float spacing is 1); shifted left by 23, those bits become the exponent field of 2^n and the
// higher bits fall off. Clamping x at -127 makes that field 0 for the smallest n, i.e. 2^n = +0.
// The clamp keeps a NaN: x86's maxps returns its second operand when either is NaN, and xsimd's
// max(a, b) is maxps(a, b). A NaN then stays NaN through the polynomial, whatever the shift.
template <Exp2Precision Precision = Exp2Precision::float32>
Floats exp2_nonpositive(Floats x) {
  constexpr float kShifter = 12582912.0f + 127.0f;
  x = xsimd::max(Floats(-127.0f), x);
  const Floats shifted = x + Floats(kShifter);
  const Floats f = x - (shifted - Floats(kShifter));
  // Least-squares fits of 2^f on [-0.5, 0.5] in relative error: degree 5 (max 7.7e-8), degree 3
  // (max 1.4e-4).
  Floats poly;
  if constexpr (Precision == Exp2Precision::float32) {
    poly = multiply_add(Floats(1.32669705e-3f), f, Floats(9.67545975e-3f));
    poly = multiply_add(poly, f, Floats(5.55074262e-2f));
    poly = multiply_add(poly, f, Floats(2.40221218e-1f));
    poly = multiply_add(poly, f, Floats(6.93146949e-1f));
    poly = multiply_add(poly, f, Floats(1.00000007f));
  } else {
    poly = multiply_add(Floats(5.50292665e-2f), f, Floats(2.42256982e-1f));
    poly = multiply_add(poly, f, Floats(6.93253055e-1f));
    poly = multiply_add(poly, f, Floats(9.99951339e-1f));
  }
  const Floats power = xsimd::bitwise_cast<Floats>(xsimd::bitwise_cast<Bits>(shifted) << 23);
  return poly * power;
}

// combine(initial, step(0), ..., step(keys - 1)) for an associative and commutative combine under
// which `initial` combined with itself is `initial` (max with any initial, + with 0), folded in
// kChains partials that all start from it: a loop down a column of scores then runs at the
// throughput of its steps, not at the latency of one chain of combines.
constexpr std::size_t kChains = 4;
template <class Step, class Combine>
[[gnu::always_inline]] inline Floats fold_keys(std::size_t keys, Floats initial, Step step, Combine combine) {
  Floats partial[kChains];
  for (std::size_t c = 0; c < kChains; ++c) partial[c] = initial;
  std::size_t j = 0;
  for (; j + kChains <= keys; j += kChains)
    for (std::size_t c = 0; c < kChains; ++c) partial[c] = combine(partial[c], step(j + c));
  for (; j < keys; ++j) partial[0] = combine(partial[0], step(j));
  for (std::size_t c = 1; c < kChains; ++c) partial[0] = combine(partial[0], partial[c]);
  return partial[0];
}

// The online softmax step of kWidth query rows over `keys` score rows of a tile: weights
// exp2(score - new max) replace the scores, and the rows' running max and sum move on; rescale
// receives exp2(old max - new max), by which their earlier output must shrink. A row whose keys
// have all been masked so far keeps max -inf and uses 0 as its base, so its weights are
// exp2(-inf) = 0. A NaN score (maxps may or may not carry it into the max) has weight NaN.
[[gnu::always_inline]] inline void update_softmax(float* scores, std::size_t keys, float* row_max, float* row_sum,
                                                  float* rescale) {
  const Floats old_max = Floats::load_aligned(row_max);
  const Floats new_max = fold_keys(
      keys, old_max, [&](std::size_t j) { return Floats::load_aligned(scores + j * kQueryTile); },
      [](Floats a, Floats b) { return xsimd::max(a, b); });
  const Floats base = xsimd::select(new_max == Floats(kMinusInfinity), Floats(0.0f), new_max);
  const auto weigh = [&](std::size_t j) {
    const Floats weight = exp2_nonpositive(Floats::load_aligned(scores + j * kQueryTile) - base);
    weight.store_aligned(scores + j * kQueryTile);
    return weight;
  };
  const Floats sum = fold_keys(keys, Floats(0.0f), weigh, [](Floats a, Floats b) { return a + b; });
  const Floats factor = exp2_nonpositive(old_max - base);
  factor.store_aligned(rescale);
  multiply_add(Floats::load_aligned(row_sum), factor, sum).store_aligned(row_sum);
  new_max.store_aligned(row_max);
}

// An element as a float.
[[gnu::always_inline]] inline float widen(float x) { return x; }
[[gnu::always_inline]] inline float widen(bfloat16 x) { return to_float(x); }

#if defined(__AVX2__)
[[gnu::always_inline]] inline __m256 load_8(const float* p) { return _mm256_loadu_ps(p); }
[[gnu::always_inline]] inline __m256 load_8(const bfloat16* p) {
  const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
}

// dst[d][x] (rows dst_stride apart) = rows[x][d] for x, d < 8: eight vectors of 32-bit lanes
// transposed, bit for bit.
inline void transpose_8x8(const __m256 (&rows)[8], float* dst, std::size_t dst_stride) {
  // Interleave pairs of rows, then pairs of pairs within each 128-bit lane, then swap lanes:
  // after the three steps, vector d holds column d.
  __m256 pairs[8], quads[8];
  for (int i = 0; i < 8; i += 2) {
    pairs[i] = _mm256_unpacklo_ps(rows[i], rows[i + 1]);
    pairs[i + 1] = _mm256_unpackhi_ps(rows[i], rows[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    quads[i] = _mm256_shuffle_ps(pairs[i], pairs[i + 2], 0x44);
    quads[i + 1] = _mm256_shuffle_ps(pairs[i], pairs[i + 2], 0xEE);
    quads[i + 2] = _mm256_shuffle_ps(pairs[i + 1], pairs[i + 3], 0x44);
    quads[i + 3] = _mm256_shuffle_ps(pairs[i + 1], pairs[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(dst + i * dst_stride, _mm256_permute2f128_ps(quads[i], quads[i + 4], 0x20));
    _mm256_storeu_ps(dst + (i + 4) * dst_stride, _mm256_permute2f128_ps(quads[i], quads[i + 4], 0x31));
  }
}

// dst[d][x] (rows dst_stride apart) = factor * src[x][d] (rows src_stride apart) for x, d < 8.
template <class Element>
inline void transpose_8x8(const Element* src, std::size_t src_stride, float* dst, std::size_t dst_stride,
                          __m256 factor) {
  __m256 rows[8];
  for (int i = 0; i < 8; ++i) rows[i] = _mm256_mul_ps(load_8(src + i * src_stride), factor);
  transpose_8x8(rows, dst, dst_stride);
}
#endif

// The query tile (`rows` rows of head_dim, then zeros up to `groups` groups) times `factor`,
// packed: queries[(g * head_dim + d) * kBlockColumns + x] = factor * q[g * kBlockColumns + x][d].
// Whole blocks of 8 x 8 are transposed in registers where AVX2 is available (the branch is chosen
// by the flags this file is compiled with), the rest element by element.
template <class Element>
void pack_queries(const Element* q, std::size_t rows, std::size_t groups, std::size_t head_dim, float factor,
                  float* queries) {
  static_assert(kBlockColumns % 8 == 0);
  for (std::size_t r0 = 0; r0 < groups * kBlockColumns; r0 += 8) {
    float* const packed = queries + (r0 / kBlockColumns) * head_dim * kBlockColumns + r0 % kBlockColumns;
    std::size_t d = 0;
#if defined(__AVX2__)
    const __m256 factors = _mm256_set1_ps(factor);
    if (r0 + 8 <= rows)
      for (; d + 8 <= head_dim; d += 8)
        transpose_8x8(q + r0 * head_dim + d, head_dim, packed + d * kBlockColumns, kBlockColumns, factors);
#endif
    for (std::size_t x = 0; x < 8; ++x)
      for (std::size_t e = d; e < head_dim; ++e)
        packed[e * kBlockColumns + x] = r0 + x < rows ? widen(q[(r0 + x) * head_dim + e]) * factor : 0.0f;
  }
}

// Prefetches into L2 the first `elements` elements of `rows` rows `stride` elements apart.
template <class Element>
void prefetch_rows(const Element* first, std::size_t rows, std::size_t stride, std::size_t elements) {
  constexpr std::size_t kLine = 64 / sizeof(Element);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t e = 0; e < elements; e += kLine) __builtin_prefetch(first + r * stride + e, 0, 2);
}

// Rows [0, rows) of `columns` bfloat16 values, `from_stride` apart, as floats in rows `to_stride`
// apart, zero from `columns` to `to_stride`. With AVX-512, 16 values at a time: zero-extended to
// 32 bits and shifted into the high half, one instruction each, where GCC's own loop takes 8 and
// an extract.
inline void widen_rows(const bfloat16* from, std::size_t rows, std::size_t columns, std::size_t from_stride,
                       float* to, std::size_t to_stride) {
  for (std::size_t r = 0; r < rows; ++r, from += from_stride, to += to_stride) {
    std::size_t c = 0;
#if defined(__AVX512F__)
    for (; c + 16 <= columns; c += 16)
      _mm512_storeu_ps(to + c, _mm512_castsi512_ps(_mm512_slli_epi32(
                                   _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + c))), 16)));
#endif
    for (; c < columns; ++c) to[c] = to_float(from[c]);
    for (c = columns; c < to_stride; ++c) to[c] = 0.0f;
  }
}

#if defined(__AVX512BF16__)
// A pair of bfloat16 as one 32-bit word, the first in the low half: the operand element of
// vdpbf16ps, which adds a[2i] * b[2i] + a[2i + 1] * b[2i + 1] to float lane i.
using Pair = std::uint32_t;

[[gnu::always_inline]] inline Pair load_pair(const bfloat16* p) {
  Pair pair;
  __builtin_memcpy(&pair, p, sizeof pair);
  return pair;
}

// Index vector of vpermw that interleaves a vector's two halves of 16 words: a[c], a[16 + c].
[[gnu::always_inline]] inline __m512i interleave_halves() {
  alignas(64) static constexpr std::uint16_t kIndex[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,
                                                           21, 6, 22, 7, 23, 8,  24, 9,  25, 10, 26,
                                                           11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  return _mm512_load_si512(kIndex);
}

// The query tile packed as pairs of head dimensions: queries[(g * head_pairs + p) * kBlockColumns
// + x] = (q[g * kBlockColumns + x][2p], q[..][2p + 1]); zeros past `rows`, and in the high half
// of the last pair when head_dim is odd. Unscaled: score_pairs scales the float scores.
void pack_query_pairs(const bfloat16* q, std::size_t rows, std::size_t groups, std::size_t head_dim, Pair* queries) {
  const std::size_t head_pairs = (head_dim + 1) / 2;
  for (std::size_t r0 = 0; r0 < groups * kBlockColumns; r0 += 8) {
    Pair* const packed = queries + (r0 / kBlockColumns) * head_pairs * kBlockColumns + r0 % kBlockColumns;
    // Whole blocks of 8 rows x 8 pairs are transposed in registers, as words (bit for bit): the
    // rows' pairs are words where head_dim is even.
    std::size_t p = 0;
    if (r0 + 8 <= rows && head_dim % 2 == 0)
      for (; p + 8 <= head_pairs; p += 8) {
        __m256 block[8];
        for (std::size_t x = 0; x < 8; ++x)
          block[x] = _mm256_loadu_ps(reinterpret_cast<const float*>(q + (r0 + x) * head_dim + 2 * p));
        transpose_8x8(block, reinterpret_cast<float*>(packed + p * kBlockColumns), kBlockColumns);
      }
    for (std::size_t x = 0; x < 8; ++x) {
      const std::size_t r = r0 + x;
      const bfloat16* const row = q + r * head_dim;
      for (std::size_t e = p; e < head_dim / 2; ++e)
        packed[e * kBlockColumns + x] = r < rows ? load_pair(row + 2 * e) : 0;
      if (head_dim % 2 != 0) packed[(head_pairs - 1) * kBlockColumns + x] = r < rows ? row[head_dim - 1].bits : 0;
    }
  }
}

// score_block on bfloat16 pairs: scores[i][x] = factor * keys(i) . query x of `queries`, a group
// packed by pack_query_pairs (head_pairs rows of Vectors * kWidth); step(d) at each pair's start.
template <std::size_t Vectors = kBlockVectors, class Keys, class Step = NoStep>
[[gnu::always_inline]] inline void score_pairs(const Keys& keys, const Pair* queries, std::size_t head_dim, float factor,
                                               float* scores, const Step& step = {}) {
  constexpr std::size_t kKeys = Keys::kKeys;
  __m512 acc[kKeys][Vectors];
#pragma GCC unroll 16
  for (std::size_t i = 0; i < kKeys; ++i)
#pragma GCC unroll 4
    for (std::size_t x = 0; x < Vectors; ++x) acc[i][x] = _mm512_setzero_ps();
  const auto add = [&](const Pair* pairs, const auto& key_pair) {
    __m512bh q[Vectors];
#pragma GCC unroll 4
    for (std::size_t x = 0; x < Vectors; ++x) q[x] = (__m512bh)_mm512_load_si512(pairs + x * kWidth);
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kKeys; ++i) {
      const auto k = (__m512bh)_mm512_set1_epi32(static_cast<int>(key_pair(i)));
#pragma GCC unroll 4
      for (std::size_t x = 0; x < Vectors; ++x) acc[i][x] = _mm512_dpbf16_ps(acc[i][x], k, q[x]);
    }
  };
  std::size_t d = 0;
#pragma GCC unroll 2
  for (; d + 2 <= head_dim; d += 2, queries += Vectors * kWidth) {
    step(d);
    add(queries, [&](std::size_t i) { return load_pair(keys(i) + d); });
  }
  // An odd head_dim's last element, its pair's high half zero (as the queries' is): nothing is
  // read past a key row.
  if (d < head_dim) add(queries, [&](std::size_t i) { return Pair{keys(i)[d].bits}; });
  const __m512 factors = _mm512_set1_ps(factor);
#pragma GCC unroll 16
  for (std::size_t i = 0; i < kKeys; ++i)
#pragma GCC unroll 4
    for (std::size_t x = 0; x < Vectors; ++x)
      _mm512_store_ps(scores + i * kQueryTile + x * kWidth, _mm512_mul_ps(acc[i][x], factors));
}

// The weights of kWidth rows (columns of the score rows, kQueryTile apart) over keys [0, keys),
// rounded to bfloat16 and packed as pairs of keys: pairs[(j / 2) * kQueryTile + r] = (weight j,
// weight j + 1) of row r, the last one's high half zero when `keys` is odd.
void pack_weight_pairs(const float* weights, std::size_t keys, Pair* pairs) {
  const __m512i interleave = interleave_halves();
  for (std::size_t j = 0; j < keys; j += 2, weights += 2 * kQueryTile, pairs += kQueryTile) {
    const __m512 first = _mm512_load_ps(weights);
    const __m512 second = j + 1 < keys ? _mm512_load_ps(weights + kQueryTile) : _mm512_setzero_ps();
    // vcvtne2ps2bf16 rounds to nearest even (flushing subnormal weights to zero): `first` in the
    // low 16 words, `second` in the high ones, which the interleave pairs lane by lane.
    const __m512i halves = (__m512i)_mm512_cvtne2ps_pbh(second, first);
    _mm512_store_si512(pairs, _mm512_permutexvar_epi16(interleave, halves));
  }
}

// vpermt2w's indices that pair two rows' 32 columns: word 2i of `low` takes the first row's column
// i, word 2i + 1 the second row's (index 32 + i); `high` the same for columns i + 16.
struct RowPairIndices {
  alignas(64) std::uint16_t low[32];
  alignas(64) std::uint16_t high[32];
};
constexpr RowPairIndices row_pair_indices() {
  RowPairIndices indices{};
  for (std::uint16_t i = 0; i < 32; ++i) {
    indices.low[i] = static_cast<std::uint16_t>(i % 2 * 32 + i / 2);
    indices.high[i] = static_cast<std::uint16_t>(i % 2 * 32 + i / 2 + 16);
  }
  return indices;
}
constexpr RowPairIndices kRowPairIndices = row_pair_indices();

// A key tile of V (`keys` rows of value_dim) packed as pairs of keys: pairs[(j / 2) * columns +
// c] = (v[j][c], v[j + 1][c]), zero past value_dim (to `columns`, a multiple of kWidth) and in the
// high halves of the last pair when `keys` is odd.
void pack_value_pairs(const bfloat16* values, std::size_t keys, std::size_t value_dim, std::size_t columns,
                      Pair* pairs) {
  const __m512i interleave = interleave_halves();
  const __m512i low = _mm512_load_si512(kRowPairIndices.low), high = _mm512_load_si512(kRowPairIndices.high);
  for (std::size_t j = 0; j < keys; j += 2, values += 2 * value_dim, pairs += columns) {
    std::size_t c = 0;
    if (j + 1 < keys)
      for (; c + 2 * kWidth <= value_dim; c += 2 * kWidth) {
        const __m512i first = _mm512_loadu_si512(values + c), second = _mm512_loadu_si512(values + value_dim + c);
        _mm512_store_si512(pairs + c, _mm512_permutex2var_epi16(first, low, second));
        _mm512_store_si512(pairs + c + kWidth, _mm512_permutex2var_epi16(first, high, second));
      }
    for (; c < columns; c += kWidth) {
      const __mmask16 present = value_dim - c >= kWidth ? __mmask16(0xffff) : __mmask16((1u << (value_dim - c)) - 1);
      const __m256i first = _mm256_maskz_loadu_epi16(present, values + c);
      const __m256i second = j + 1 < keys ? _mm256_maskz_loadu_epi16(present, values + value_dim + c)
                                          : _mm256_setzero_si256();
      const __m512i halves = _mm512_inserti64x4(_mm512_castsi256_si512(first), second, 1);
      _mm512_store_si512(pairs + c, _mm512_permutexvar_epi16(interleave, halves));
    }
  }
}

// accumulate_into with bfloat16 pair products: the sums over j < keys of weight j of row r times
// value row j, from weights packed by pack_weight_pairs (rows kQueryTile apart) and values by
// pack_value_pairs (`value_stride` words apart). For an odd `keys`, the last pair's second key
// is dropped from the values: its weights belong to rows that do not see it, and are zero, but a
// non-finite value times zero would not be. Not inlined: inlined into attend_tile, GCC 12 kept the
// 24 accumulators on the stack, a load and a store around every vdpbf16ps.
template <std::size_t Vectors, class Output>
[[gnu::noinline]] void accumulate_pairs(const Pair* weights, std::size_t keys, const Pair* values,
                                        std::size_t value_stride, float* outputs, std::size_t output_stride,
                                        const float* rescale, bool first_tile, Output* finished,
                                        const Finish& finish) {
  const auto add_products = [&](Floats(&acc)[kBlockRows][Vectors]) {
    // Words whose second key is dropped: all of them in the last pair of an odd `keys`.
    const __mmask32 last = keys % 2 == 0 ? ~__mmask32(0) : __mmask32(0x55555555);
    const std::size_t pairs = (keys + 1) / 2;
    for (std::size_t p = 0; p < pairs; ++p, weights += kQueryTile, values += value_stride) {
      const __mmask32 present = p + 1 < pairs ? ~__mmask32(0) : last;
      __m512bh v[Vectors];
#pragma GCC unroll 4
      for (std::size_t x = 0; x < Vectors; ++x)
        v[x] = (__m512bh)_mm512_maskz_mov_epi16(present, _mm512_load_si512(values + x * kWidth));
#pragma GCC unroll 16
      for (std::size_t r = 0; r < kBlockRows; ++r) {
        const auto w = (__m512bh)_mm512_set1_epi32(static_cast<int>(weights[r]));
#pragma GCC unroll 4
        for (std::size_t x = 0; x < Vectors; ++x) acc[r][x] = _mm512_dpbf16_ps(acc[r][x], w, v[x]);
      }
    }
  };
  accumulate_into<Vectors, Output>(add_products, outputs, output_stride, rescale, first_tile, finished, finish);
}
#endif

template <Products P>
void attend_tile(const ElementFlashCall<ElementOf<P>>& call, std::size_t bh, std::size_t tile, float* scratch) {
  using Element = ElementOf<P>;
  constexpr bool kFloats = P == Products::floats, kWidened = P == Products::widened_bfloat16;
  const AttentionShape& s = call.shape;
  const Layout l = layout_of<P>(s);
  const std::size_t kv = (bh / s.heads) * s.kv_heads + (bh % s.heads) / (s.heads / s.kv_heads);
  const Element* const k = call.k + kv * s.seq_k * s.head_dim;
  const Element* const v = call.v + kv * s.seq_k * s.value_dim;

  const std::size_t first_query = tile * kQueryTile;
  const std::size_t rows = smaller(kQueryTile, s.seq_q - first_query);
  const std::size_t groups = round_up(rows, kBlockColumns) / kBlockColumns;
  const std::size_t blocks = round_up(rows, kBlockRows) / kBlockRows;
  // Rows past `rows` are padding: zero queries, never written out. They take the causal limit
  // of the last real row, and visible key counts grow with the row.
  const auto keys_end_of_row = [&](std::size_t r) {
    return visible_keys(call.window, first_query + smaller(r, rows - 1));
  };
  // Visible keys of block b: those of its last row, as counts grow with the row.
  const auto keys_end_of_block = [&](std::size_t b) { return keys_end_of_row(b * kBlockRows + kBlockRows - 1); };

  float* const queries = scratch + l.queries;
  float* const scores = scratch + l.scores;
  float* const outputs = scratch + l.outputs;
  float* const row_max = scratch + l.row_max;
  float* const row_sum = scratch + l.row_sum;
  float* const rescale = scratch + l.rescale;
  float* const zero_key = scratch + l.zero_key;
  float* const value_tail = scratch + l.value_tail;
  float* const key_tile = scratch + l.key_tile;
  float* const value_tile = scratch + l.value_tile;

  const Element* const q = call.q + (bh * s.seq_q + first_query) * s.head_dim;
  // P V of the last block may read weight columns past the last group, which no score fills.
#if defined(__AVX512BF16__)
  Pair* const query_pairs = reinterpret_cast<Pair*>(queries);
  Pair* const weight_pairs = reinterpret_cast<Pair*>(scratch + l.weight_pairs);
  Pair* const value_pairs = reinterpret_cast<Pair*>(value_tile);
  const std::size_t head_pairs = (s.head_dim + 1) / 2;
  if constexpr (P == Products::bfloat16_pairs) {
    pack_query_pairs(q, rows, groups, s.head_dim, query_pairs);
    for (std::size_t j = 0; j < kKeyTile / 2; ++j)
      for (std::size_t r = groups * kBlockColumns; r < blocks * kBlockRows; ++r) weight_pairs[j * kQueryTile + r] = 0;
  } else
#endif
  {
    pack_queries(q, rows, groups, s.head_dim, call.query_factor, queries);
    for (std::size_t j = 0; j < kKeyTile; ++j)
      for (std::size_t r = groups * kBlockColumns; r < blocks * kBlockRows; ++r) scores[j * kQueryTile + r] = 0.0f;
  }
  for (std::size_t r = 0; r < kQueryTile; ++r) {
    row_max[r] = kMinusInfinity;
    row_sum[r] = 0.0f;
    rescale[r] = 1.0f;
  }
  for (std::size_t d = 0; d < s.head_dim; ++d) zero_key[d] = 0.0f;

  Element* const out = call.out + (bh * s.seq_q + first_query) * s.value_dim;
  const std::size_t whole_columns = s.value_dim / kWidth * kWidth;
  const std::size_t tile_keys_end = keys_end_of_row(rows - 1);
  for (std::size_t key0 = 0; key0 < tile_keys_end; key0 += kKeyTile) {
    const std::size_t tile_keys = smaller(kKeyTile, s.seq_k - key0);
    // Keys of the next tile, prefetched into L2 while this one is computed. A task streams all
    // of its head's K and V, which seldom stay in L2 from one task to the next, and hardware
    // prefetchers from L3 miss the column slices of V and the key rows broadcast a block at a time.
    const std::size_t next_key0 = key0 + kKeyTile;
    const std::size_t prefetched_keys = next_key0 < tile_keys_end ? smaller(kKeyTile, s.seq_k - next_key0) : 0;
    // Keys of this tile before `end`.
    const auto keys_before = [&](std::size_t end) { return end <= key0 ? 0 : smaller(tile_keys, end - key0); };
    // Keys of this tile that rows up to `last_row` see.
    const auto keys_until_row = [&](std::size_t last_row) { return keys_before(keys_end_of_row(last_row)); };
    // A group's weights must cover every block that overlaps it.
    const auto group_keys = [&](std::size_t g) {
      return keys_until_row(round_up((g + 1) * kBlockColumns, kBlockRows) - 1);
    };

    if constexpr (kWidened) widen_rows(k + key0 * s.head_dim, tile_keys, s.head_dim, s.head_dim, key_tile, s.head_dim);
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t keys = group_keys(g);
      for (std::size_t j0 = 0; j0 < keys; j0 += kBlockRows) {
        // Rows of the key block: K's own (or their widened copies); zeros past seq_k.
        using KeyElement = std::conditional_t<kWidened, float, Element>;
        const KeyElement* block[kBlockRows];
        for (std::size_t i = 0; i < kBlockRows; ++i) {
          const std::size_t key = key0 + j0 + i;
          if constexpr (kWidened)
            block[i] = key < s.seq_k ? key_tile + (j0 + i) * s.head_dim : zero_key;
          else
            block[i] = key < s.seq_k ? k + key * s.head_dim : reinterpret_cast<const Element*>(zero_key);
        }
#if defined(__AVX512BF16__)
        if constexpr (P == Products::bfloat16_pairs)
          score_pairs(KeyPointers<Element>{block}, query_pairs + g * head_pairs * kBlockColumns, s.head_dim,
                      call.query_factor, scores + j0 * kQueryTile + g * kBlockColumns);
        else
#endif
          score_block(KeyPointers<KeyElement>{block}, queries + g * s.head_dim * kBlockColumns, s.head_dim,
                      scores + j0 * kQueryTile + g * kBlockColumns);
        if (g == 0 && j0 < prefetched_keys)
          prefetch_rows(k + (next_key0 + j0) * s.head_dim, smaller(kBlockRows, prefetched_keys - j0), s.head_dim,
                        s.head_dim);
      }
    }

    // Groups and blocks without a key in this tile are skipped whole: their rows' max, sum and
    // output stay as they are.
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t keys = group_keys(g);
      if (keys == 0) continue;
      if (call.mask != nullptr) {
        for (std::size_t r = g * kBlockColumns; r < smaller((g + 1) * kBlockColumns, rows); ++r) {
          const float* const mask = call.mask + (first_query + r) * s.seq_k + key0;
          for (std::size_t j = 0; j < keys; ++j) scores[j * kQueryTile + r] += mask[j] * kLog2e;
        }
      }
      for (std::size_t r0 = g * kBlockColumns; r0 < (g + 1) * kBlockColumns; r0 += kWidth) {
        // Visible key counts grow with the row: if the first row sees every key of the group, so
        // do the others, and their limits need not be computed (most of a causal tile, all of a
        // non-causal one).
        if (keys_until_row(r0) < keys) {
          // Key j of the tile is past row r's causal limit iff j >= limit[r].
          alignas(64) float limit[kWidth];
          for (std::size_t x = 0; x < kWidth; ++x) limit[x] = static_cast<float>(keys_until_row(r0 + x));
          const Floats limits = Floats::load_aligned(limit);
          for (auto j = static_cast<std::size_t>(limit[0]); j < keys; ++j) {
            float* const row = scores + j * kQueryTile + r0;
            const Floats masked = xsimd::select(Floats(static_cast<float>(j)) >= limits, Floats(kMinusInfinity),
                                                Floats::load_aligned(row));
            masked.store_aligned(row);
          }
        }
        update_softmax(scores + r0, keys, row_max + r0, row_sum + r0, rescale + r0);
#if defined(__AVX512BF16__)
        if constexpr (P == Products::bfloat16_pairs) pack_weight_pairs(scores + r0, keys, weight_pairs + r0);
#endif
      }
    }

    // P V, a block of query rows at a time over all columns of V: slices of kBlockColumns, then
    // single vectors, then the columns past the last whole vector, copied with zeros after them so
    // that no load runs past a row. A block's weights then stay in L1 across the slices, and the
    // tile of V across the blocks. The next tile of V is prefetched a few rows per block.
    const Element* const tile_values = v + key0 * s.value_dim;
    const bool first_tile = key0 == 0;
    if constexpr (kWidened)
      widen_rows(tile_values, tile_keys, s.value_dim, s.value_dim, value_tile, l.value_columns);
#if defined(__AVX512BF16__)
    if constexpr (P == Products::bfloat16_pairs)
      pack_value_pairs(tile_values, tile_keys, s.value_dim, l.value_columns, value_pairs);
#endif
    if constexpr (kFloats) {
      if (whole_columns < s.value_dim)
        for (std::size_t j = 0; j < tile_keys; ++j)
          for (std::size_t x = 0; x < kWidth; ++x)
            value_tail[j * kWidth + x] =
                whole_columns + x < s.value_dim ? tile_values[j * s.value_dim + whole_columns + x] : 0.0f;
    }
    const Element* const next_values = prefetched_keys > 0 ? v + next_key0 * s.value_dim : v;
    const std::size_t prefetched_per_block = (prefetched_keys + blocks - 1) / blocks;
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t r0 = b * kBlockRows;
      const std::size_t first_prefetched = smaller(b * prefetched_per_block, prefetched_keys);
      prefetch_rows(next_values + first_prefetched * s.value_dim,
                    smaller(prefetched_per_block, prefetched_keys - first_prefetched), s.value_dim, s.value_dim);
      const std::size_t block_end = keys_end_of_block(b);
      const std::size_t keys = keys_before(block_end);
      if (keys == 0) continue;
      // The tile that holds the block's last visible key finishes its rows: their sums are final,
      // so P V goes to `out` divided by them, with no pass of its own over the outputs after the
      // last tile (3-4% of the time at S = 128, 1% at S = 1024, measured on an Intel Xeon).
      const bool last_tile = key0 + tile_keys >= block_end;
      // A row's sum is zero only if it saw no key (else its largest weight is exp2(0) = 1), and
      // NaN if a score was NaN or +inf (exp2(inf - inf)): the row is then zeros, or NaN.
      alignas(64) float inverse[kBlockRows];
      if (last_tile)
        for (std::size_t r = 0; r < kBlockRows; ++r)
          inverse[r] = row_sum[r0 + r] == 0.0f ? 0.0f : 1.0f / row_sum[r0 + r];
      const Finish finish{.factors = inverse, .stride = s.value_dim, .rows = smaller(kBlockRows, rows - r0)};
      Element* const block_out = out + r0 * s.value_dim;
      float* const block_outputs = outputs + r0 * l.value_columns;
      if constexpr (!kFloats) {
        // Whole vectors over the padded columns of the tile's copy; the last columns out.
        const auto finish_columns = [&](std::size_t column) {
          Finish columns = finish;
          columns.columns = s.value_dim - column;
          return columns;
        };
        const auto accumulate = [&]<std::size_t Vectors>(std::size_t column) {
          Element* const finished = last_tile ? block_out + column : nullptr;
#if defined(__AVX512BF16__)
          if constexpr (P == Products::bfloat16_pairs)
            accumulate_pairs<Vectors, Element>(weight_pairs + r0, keys, value_pairs + column, l.value_columns,
                                      block_outputs + column, l.value_columns, rescale + r0, first_tile, finished,
                                      finish_columns(column));
          else
#endif
            accumulate_block<Vectors, Element>(scores + r0, keys, value_tile + column, l.value_columns,
                                      block_outputs + column, l.value_columns, rescale + r0, first_tile, finished,
                                      finish_columns(column));
        };
        std::size_t column = 0;
        for (; column + kBlockColumns <= l.value_columns; column += kBlockColumns)
          accumulate.template operator()<kBlockVectors>(column);
        for (; column < l.value_columns; column += kWidth) accumulate.template operator()<1>(column);
      } else {
        std::size_t column = 0;
        for (; column + kBlockColumns <= whole_columns; column += kBlockColumns)
          accumulate_block<kBlockVectors>(scores + r0, keys, tile_values + column, s.value_dim, block_outputs + column,
                                          l.value_columns, rescale + r0, first_tile,
                                          last_tile ? block_out + column : nullptr, finish);
        for (; column < whole_columns; column += kWidth)
          accumulate_block<1>(scores + r0, keys, tile_values + column, s.value_dim, block_outputs + column,
                              l.value_columns, rescale + r0, first_tile, last_tile ? block_out + column : nullptr,
                              finish);
        if (column < s.value_dim) {
          // The partial vector is finished into whole vectors here, whose first columns go out.
          alignas(64) float tail[kBlockRows * kWidth];
          accumulate_block<1>(scores + r0, keys, value_tail, kWidth, block_outputs + column, l.value_columns,
                              rescale + r0, first_tile, last_tile ? tail : nullptr,
                              Finish{.factors = inverse, .stride = kWidth, .rows = finish.rows});
          if (last_tile)
            for (std::size_t r = 0; r < finish.rows; ++r)
              for (std::size_t c = column; c < s.value_dim; ++c)
                block_out[r * s.value_dim + c] = tail[r * kWidth + c - column];
        }
      }
    }
  }
  // A block that sees no key at all (more queries than keys, bottom-right) is finished by no
  // tile: its rows are zeros.
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t r0 = b * kBlockRows;
    if (keys_end_of_block(b) != 0) continue;
    for (std::size_t r = r0; r < smaller(r0 + kBlockRows, rows); ++r)
      for (std::size_t c = 0; c < s.value_dim; ++c) out[r * s.value_dim + c] = Element{};
  }
}

}  // namespace
}  // namespace attention::simd::ATTENTION_SIMD_NAMESPACE

#include "decode_kernel.inl"
#include "product_rounds.inl"

namespace attention::simd::ATTENTION_SIMD_NAMESPACE {

#if !defined(ATTENTION_SIMD_TILES)
namespace {

// A task of these kernels is one query tile (kMaxTaskTiles); tile_kernel.inl's fallback hands
// them its tasks of several.
constexpr std::size_t kMaxTaskTiles = 1;

template <Products P>
void attend(const ElementFlashCall<ElementOf<P>>& call, std::size_t bh, std::size_t tile, std::size_t tiles,
            float* scratch) {
  for (std::size_t t = tile; t < tile + tiles; ++t) attend_tile<P>(call, bh, t, scratch);
}

}  // namespace
#endif

// The amxbf16 level's table is tile_kernel.inl's.
#if defined(ATTENTION_SIMD_TILES)
#elif defined(__AVX512BF16__)
const Bf16FlashKernels kBf16FlashKernels = {kQueryTile,
                                            kMaxTaskTiles,
                                            thread_floats<Products::bfloat16_pairs>,
                                            attend<Products::bfloat16_pairs>,
                                            kDecodeTaskRows,
                                            decode_thread_floats<bfloat16>,
                                            decode<bfloat16>,
                                            products_per_round,
                                            run_product_rounds};
#else
const FlashKernels kFlashKernels = {kQueryTile,      kMaxTaskTiles,
                                    thread_floats<Products::floats>, attend<Products::floats>,
                                    kDecodeTaskRows, decode_thread_floats<float>,
                                    decode<float>};
const Bf16FlashKernels kBf16FlashKernels = {kQueryTile,
                                            kMaxTaskTiles,
                                            thread_floats<Products::widened_bfloat16>,
                                            attend<Products::widened_bfloat16>,
                                            kDecodeTaskRows,
                                            decode_thread_floats<bfloat16>,
                                            decode<bfloat16>,
                                            products_per_round,
                                            run_product_rounds};
#endif

}  // namespace attention::simd::ATTENTION_SIMD_NAMESPACE
