// The body of a per-ISA Flash-Decoding task, included by flash_kernel.inl after its helpers
// (Floats, multiply_add, exp2_nonpositive, ...), in the same translation unit and namespaces.
//
// Decoding is a few queries against many keys: too few query rows to share a flash task's tiles,
// and K and V too large to stay in any cache, so the time is the time to stream them, and the
// arithmetic must keep out of the way of the loads. A task therefore takes every query row that
// reads one key/value head (the query heads of its group, each with its seq_q queries) and walks
// a range of keys once: per block of keys (kDecodeKeyBlock; kFewRowsKeyBlock in the few-rows
// way below), the scores of all its rows (each key row read from memory once, then from L1 for
// the other rows), the online softmax of each row, and P V into each row's output (each value row
// likewise). The caller splits the keys so that there are tasks enough for every thread, and
// combines the partial results of a row's splits exactly (decode_sdpa.cpp).
//
// Three ways through a block, by the task's rows:
//  - exactly kWidth rows without a mask (four queries of a group of four heads where a vector
//    holds 16 floats), of floats, of bfloat16 pairs, or of bfloat16 widened a block of keys at a
//    time: the rows in the lanes of one vector, as flash's are, with flash's score_block
//    (score_pairs) on that one vector and update_softmax, and P V as the few-rows way takes it
//    (decode_lane_rows);
//  - otherwise fewer than flash's kBlockColumns (one query of a group of four heads; masked rows of
//    four queries where a vector holds 16 floats): both products take the rows in chunks of up to
//    four, with no packing of K or V. For the scores, a chunk's query rows stay in registers while
//    each key is loaded once, one accumulator per (row, key), kWidth of them, reduced at the end to
//    one vector of the chunk's scores (decode_scores); for P V, a chunk's output rows accumulate
//    over the block's keys in registers, a few chunks of columns at a time, each value chunk loaded
//    once for the chunk of rows (decode_accumulate). How the products are taken depends on the
//    element type and the ISA (FewRowsProducts): floats; bfloat16 widened in registers as it is
//    loaded; bfloat16 pairs through vdpbf16ps where the ISA has AVX512-BF16. Either bfloat16 way
//    leaves a chunk's columns out of order, so the outputs accumulate permuted and are put back in
//    order when the task ends. Dimensions past the last whole chunk are computed element by
//    element;
//  - more (four queries of four heads where a vector holds 8 floats; many queries): flash's own
//    register-blocked products (score_block, update_softmax, accumulate_block), the rows packed
//    as flash packs a query tile (they are contiguous in Q, as a tile's are), bfloat16 K and V
//    widened a block of keys at a time into scratch.

namespace attention::simd::ATTENTION_SIMD_NAMESPACE {

namespace {

constexpr std::size_t kDecodeTaskRows = 64;
constexpr std::size_t kDecodeKeyBlock = 32;
// Keys a block of the lane task (decode_lane_rows) whose P V goes through vdpbf16ps: twice
// kDecodeKeyBlock, so that each of P V's eight passes over a block (four chunks of rows, two of
// columns) loads, rescales and stores its accumulators once for 32 pairs of keys, not 16.
constexpr std::size_t kPairedLaneKeyBlock = 2 * kDecodeKeyBlock;
// The few-rows task's blocks: longer where a vector holds 16 floats, so that the rows' outputs,
// loaded, rescaled and stored once a block and chunk of columns, and each row's softmax step, are
// paid over more keys; with AVX2 and SSE2 longer blocks gave nothing.
constexpr std::size_t kFewRowsKeyBlock = kWidth == 16 ? 128 : kDecodeKeyBlock;
static_assert(kFewRowsKeyBlock % (2 * kWidth) == 0);
// Chunks of value columns (two vectors' worth each) a chunk of rows accumulates at once: 4 rows x
// 2 chunks are 16 of AVX-512's 32 registers; AVX2 and SSE2 have 16 registers, so one chunk.
constexpr std::size_t kDecodeValueChunks = kWidth == 16 ? 2 : 1;
// Keys and values are prefetched this far ahead of the block being computed.
constexpr std::size_t kDecodePrefetchKeys = 2 * kDecodeKeyBlock;
// Every chunk of rows (4, 2 or 1) takes kWidth / rows keys at once, a divisor of the block.
static_assert(kDecodeKeyBlock % kWidth == 0);

// Offsets of the regions of a thread's scratch.
// Flash's blocks see a task's rows as whole groups of kBlockColumns (scores) and blocks of
// kBlockRows (P V), padded with zero queries: within a flash query tile, a multiple of both.
static_assert(kDecodeTaskRows <= kQueryTile);

struct DecodeLayout {
  std::size_t head_columns;   // head_dim rounded up to a multiple of kAlignFloats
  std::size_t value_columns;  // value_dim rounded up to kWidth
  std::size_t queries;        // few rows: kDecodeTaskRows x head_columns, as FewRowsProducts packs
                              // them; many: flash's packing of kQueryTile rows (pack_queries)
  std::size_t scores;         // few rows: kDecodeTaskRows x kFewRowsKeyBlock; many: flash's S^T,
                              // kKeyTile x kQueryTile; the scores, then the weights
  std::size_t outputs;        // many rows: kQueryTile x value_columns, unnormalised; rows in lanes
                              // with float products: O^T, value_dim x kWidth
  std::size_t row_max;        // many rows: kQueryTile running maxima, sums and rescale factors
  std::size_t row_sum;
  std::size_t rescale;        // kQueryTile factors exp2(old max - new max) of the current block
  std::size_t zero_key;       // many rows: head_dim zeros, the keys of a block past its end
  std::size_t zero_values;    // few rows: value_dim zeros, the value row past the last key
  std::size_t weights;        // few rows: kDecodeTaskRows x kFewRowsKeyBlock / 2, the weights as
                              // FewRowsProducts::weigh packs them; bfloat16 rows in lanes:
                              // kPairedLaneKeyBlock / 2 x kQueryTile, as pack_weight_pairs does
  std::size_t key_block;      // bfloat16: a block's keys widened, kKeyTile or kDecodeKeyBlock x head_dim
  std::size_t value_block;    // bfloat16: its values widened, x value_dim
  std::size_t thread_floats;
};

template <class Element>
DecodeLayout decode_layout_of(const AttentionShape& s) {
  DecodeLayout l{};
  l.head_columns = round_up(s.head_dim, kAlignFloats);
  l.value_columns = round_up(s.value_dim, kWidth);
  std::size_t at = 0;
  const auto region = [&at](std::size_t floats) {
    const std::size_t start = at;
    at += round_up(floats, kAlignFloats);
    return start;
  };
  l.queries = region(larger(kDecodeTaskRows * l.head_columns, kQueryTile * s.head_dim));
  l.scores = region(larger(kDecodeTaskRows * kFewRowsKeyBlock, kKeyTile * kQueryTile));
  l.outputs = region(kQueryTile * l.value_columns);
  l.row_max = region(kQueryTile);
  l.row_sum = region(kQueryTile);
  l.rescale = region(kQueryTile);
  l.zero_key = region(s.head_dim);
  l.zero_values = region(s.value_dim);
  l.weights = region(larger(kDecodeTaskRows * kFewRowsKeyBlock, kQueryTile * kPairedLaneKeyBlock) / 2);
  const std::size_t block_keys = std::is_same_v<Element, float> ? 0 : larger(kKeyTile, kDecodeKeyBlock);
  l.key_block = region(block_keys * s.head_dim);
  l.value_block = region(block_keys * s.value_dim);
  l.thread_floats = at;
  return l;
}

template <class Element>
std::size_t decode_thread_floats(const AttentionShape& shape) {
  return decode_layout_of<Element>(shape).thread_floats;
}

// Rows [key0, key0 + keys) of a task's K and V as floats, head_dim and value_dim apart: in place,
// or widened into the layout's key and value blocks.
struct FloatRows {
  const float* keys;
  const float* values;
};
[[gnu::always_inline]] inline FloatRows float_rows(const float* k, const float* v, std::size_t key0, std::size_t,
                                                   const AttentionShape& s, float*, float*) {
  return {k + key0 * s.head_dim, v + key0 * s.value_dim};
}
inline FloatRows float_rows(const bfloat16* k, const bfloat16* v, std::size_t key0, std::size_t keys,
                            const AttentionShape& s, float* key_block, float* value_block) {
  widen_rows(k + key0 * s.head_dim, keys, s.head_dim, s.head_dim, key_block, s.head_dim);
  widen_rows(v + key0 * s.value_dim, keys, s.value_dim, s.value_dim, value_block, s.value_dim);
  return {key_block, value_block};
}

// How the few-rows task multiplies, by element type and ISA: a policy with
//   Element, kPermuted          its rows' element type; whether position(x) moves columns
//   position(x)                 where column x of a chunk of value columns (kChunk of them)
//                               lands in the chunk's two vectors of outputs, the order the
//                               outputs accumulate in
//   pack_query, query_element   a query row as decode_scores reads it (in position order where
//                               it is widened, as the key chunks it meets are), and its element d
//   QueryChunk, KeyChunk, load_query, load_key, multiply_add
//                               a chunk of head dimensions of a query row and of a key row, and
//                               the product of the two added to one float vector
//   kKeysPerStep, ValueChunk, load_values, Weight, weight, accumulate
//                               P V: value rows taken kKeysPerStep at a time, a chunk of their
//                               columns as two vectors' worth, a row's weight(s) of those keys
//                               (from the float weight of the row and key, or from the packed
//                               word of the row and pair of keys), their products added to the
//                               chunk's two vectors of outputs
//   weigh(weights, keys, packed) a row's weights of a block as `weight` reads them

// Float rows, and bfloat16 rows widened in registers. A bfloat16 chunk is loaded as kWidth
// 32-bit words of two elements; x86 being little-endian, a word's low half is the even column,
// which becomes a float shifted into the high half, and its high half is the odd column, a float
// once the low half is cleared: two integer operations a chunk, no permute. So a bfloat16
// chunk's first vector holds its even columns and its second its odd ones.
template <class E>
struct WidenedProducts {
  using Element = E;
  static constexpr bool kPermuted = !std::is_same_v<E, float>;
  static constexpr std::size_t kChunk = 2 * kWidth;
  static constexpr std::size_t position(std::size_t x) { return kPermuted ? x % 2 * kWidth + x / 2 : x; }

  struct Two {
    Floats first, second;
  };
  [[gnu::always_inline]] static Two load_two(const float* p) {
    return {Floats::load_unaligned(p), Floats::load_unaligned(p + kWidth)};
  }
  [[gnu::always_inline]] static Two load_two(const bfloat16* p) {
    const Bits words = Bits::load_unaligned(reinterpret_cast<const std::int32_t*>(p));
    return {xsimd::bitwise_cast<Floats>(words << 16),
            xsimd::bitwise_cast<Floats>(words & Bits(static_cast<std::int32_t>(0xFFFF0000u)))};
  }

  // Whole chunks in position order, then the rest in order, as floats.
  static void pack_query(const Element* q, std::size_t head_dim, float* row) {
    const std::size_t whole = head_dim / kChunk * kChunk;
    for (std::size_t d = 0; d < head_dim; ++d) row[d < whole ? d / kChunk * kChunk + position(d % kChunk) : d] = widen(q[d]);
  }
  [[gnu::always_inline]] static float query_element(const float* row, std::size_t d) { return row[d]; }
  using QueryChunk = Two;
  using KeyChunk = Two;
  [[gnu::always_inline]] static QueryChunk load_query(const float* row, std::size_t d) {
    return {Floats::load_aligned(row + d), Floats::load_aligned(row + d + kWidth)};
  }
  [[gnu::always_inline]] static KeyChunk load_key(const Element* key, std::size_t d) { return load_two(key + d); }
  [[gnu::always_inline]] static Floats multiply_add(const QueryChunk& q, const KeyChunk& k, Floats acc) {
    return simd::ATTENTION_SIMD_NAMESPACE::multiply_add(q.second, k.second,
                                                        simd::ATTENTION_SIMD_NAMESPACE::multiply_add(q.first, k.first, acc));
  }

  static constexpr std::size_t kKeysPerStep = 1;
  using ValueChunk = Two;
  using Weight = Floats;
  [[gnu::always_inline]] static ValueChunk load_values(const Element* row, const Element*) { return load_two(row); }
  [[gnu::always_inline]] static Weight weight(const float* weight, const float*, std::size_t) { return Floats(*weight); }
  [[gnu::always_inline]] static void accumulate(Weight w, const ValueChunk& v, Floats& first, Floats& second) {
    first = simd::ATTENTION_SIMD_NAMESPACE::multiply_add(w, v.first, first);
    second = simd::ATTENTION_SIMD_NAMESPACE::multiply_add(w, v.second, second);
  }
  static void weigh(const float*, std::size_t, float*) {}
};

#if defined(__AVX512BF16__)
// bfloat16 rows through vdpbf16ps, as flash's bfloat16_pairs (see the top of flash_kernel.inl):
// each 32-bit lane adds the products of two bfloat16 pairs, twice a float FMA's products.
//  - Scores: pairs of head dimensions, which a row's adjacent elements already are: Q is kept as
//    it is, one vector a chunk of 32 dimensions against one of the key's, and the scores are
//    scaled after the products.
//  - P V: pairs of keys. A row's weights of a block are rounded to bfloat16 (as FlashAttention
//    rounds P) and paired, keys 2p and 2p + 1 in word p; two value rows are interleaved column
//    by column (vpunpck[lh]wd, within each 128-bit lane), so a chunk of 32 columns becomes two
//    vectors of pairs: the first holds columns 0-3, 8-11, 16-19 and 24-27, the second 4-7,
//    12-15, 20-23 and 28-31, which is the order the outputs accumulate in.
struct Bf16PairProducts {
  using Element = bfloat16;
  static constexpr bool kPermuted = true;
  static constexpr std::size_t kChunk = 2 * kWidth;
  static constexpr std::size_t position(std::size_t x) { return x % 8 / 4 * kWidth + x / 8 * 4 + x % 4; }

  static void pack_query(const bfloat16* q, std::size_t head_dim, float* row) {
    __builtin_memcpy(row, q, head_dim * sizeof(bfloat16));
  }
  [[gnu::always_inline]] static float query_element(const float* row, std::size_t d) {
    return to_float(reinterpret_cast<const bfloat16*>(row)[d]);
  }
  using QueryChunk = __m512bh;
  using KeyChunk = __m512bh;
  [[gnu::always_inline]] static QueryChunk load_query(const float* row, std::size_t d) {
    return (__m512bh)_mm512_load_si512(reinterpret_cast<const bfloat16*>(row) + d);
  }
  [[gnu::always_inline]] static KeyChunk load_key(const bfloat16* key, std::size_t d) {
    return (__m512bh)_mm512_loadu_si512(key + d);
  }
  [[gnu::always_inline]] static Floats multiply_add(QueryChunk q, KeyChunk k, Floats acc) {
    return _mm512_dpbf16_ps(acc, q, k);
  }

  static constexpr std::size_t kKeysPerStep = 2;
  struct ValueChunk {
    __m512bh first, second;
  };
  using Weight = __m512bh;
  [[gnu::always_inline]] static ValueChunk load_values(const bfloat16* row, const bfloat16* next_row) {
    const __m512i a = _mm512_loadu_si512(row), b = _mm512_loadu_si512(next_row);
    return {(__m512bh)_mm512_unpacklo_epi16(a, b), (__m512bh)_mm512_unpackhi_epi16(a, b)};
  }
  [[gnu::always_inline]] static Weight weight(const float*, const float* pair, std::size_t) {
    std::uint32_t word;
    __builtin_memcpy(&word, pair, sizeof(word));
    return (__m512bh)_mm512_set1_epi32(static_cast<int>(word));
  }
  [[gnu::always_inline]] static void accumulate(Weight w, const ValueChunk& v, Floats& first, Floats& second) {
    first = _mm512_dpbf16_ps(first, w, v.first);
    second = _mm512_dpbf16_ps(second, w, v.second);
  }
  // vcvtne2ps2bf16 rounds to nearest even (flushing subnormal weights to zero): the first 16
  // weights in the low 16 words, the next in the high ones, so word p pairs weights 2p and
  // 2p + 1. Weights past `keys` are zero up to the next 32: their keys' value rows are another
  // block's, or zeros.
  static void weigh(const float* weights, std::size_t keys, float* packed) {
    const auto lanes = [](std::size_t n) { return static_cast<__mmask16>(n >= 16 ? 0xFFFF : (1u << n) - 1); };
    for (std::size_t j = 0; j < keys; j += 2 * kWidth) {
      const std::size_t left = keys - j;
      const __m512 first = _mm512_maskz_loadu_ps(lanes(left), weights + j);
      const __m512 second = _mm512_maskz_loadu_ps(lanes(left > 16 ? left - 16 : 0), weights + j + kWidth);
      _mm512_store_si512(packed + j / 2, (__m512i)_mm512_cvtne2ps_pbh(second, first));
    }
  }
};

template <class Element>
using FewRowsProducts = std::conditional_t<std::is_same_v<Element, bfloat16>, Bf16PairProducts, WidenedProducts<Element>>;
#else
template <class Element>
using FewRowsProducts = WidenedProducts<Element>;
#endif

// The sum and the largest of the lanes of x: AVX-512F's reductions where this file's ISA has
// them (xsimd's AVX-512 ones need AVX512DQ), else lane by lane. A NaN lane may or may not carry
// into the largest, as with maxps anywhere (decode_softmax relies on neither).
[[gnu::always_inline]] inline float sum_of_lanes(Floats x) {
#if defined(__AVX512F__)
  return _mm512_reduce_add_ps(x);
#else
  alignas(64) float lanes[kWidth];
  x.store_aligned(lanes);
  float sum = 0.0f;
  for (const float lane : lanes) sum += lane;
  return sum;
#endif
}
[[gnu::always_inline]] inline float max_of_lanes(Floats x) {
#if defined(__AVX512F__)
  return _mm512_reduce_max_ps(x);
#else
  alignas(64) float lanes[kWidth];
  x.store_aligned(lanes);
  float largest = lanes[0];
  for (const float lane : lanes) largest = lane > largest ? lane : largest;
  return largest;
#endif
}

// Lane j of the result is the sum of the lanes of acc[j]. With AVX-512 a tree of shuffles that
// halves the vectors at each level: 128-bit quarters of pairs (shuffle_f32x4), then of their sums
// again, then lanes within quarters (unpack, permute), one add a shuffle pair and no horizontal
// add; else xsimd's haddp where it needs no more than this file's ISA, or lane by lane.
[[gnu::always_inline]] inline Floats sums_of_each(const Floats (&acc)[kWidth]) {
#if defined(__AVX512F__)
  // The tree leaves in lane 4k + m the sum of its input k + 4m: given acc[4k + m] there, lane j
  // holds the sum of acc[j].
  __m512 in[16];
  for (std::size_t k = 0; k < 4; ++k)
    for (std::size_t m = 0; m < 4; ++m) in[k + 4 * m] = acc[4 * k + m];
  // t[i]: quarters 0-1 the halves' sums of in[2i], quarters 2-3 those of in[2i + 1] (0x44 takes
  // quarters 0, 1 of each operand, 0xEE quarters 2, 3).
  __m512 t[8], u[4], v[2];
  for (std::size_t i = 0; i < 8; ++i)
    t[i] = _mm512_add_ps(_mm512_shuffle_f32x4(in[2 * i], in[2 * i + 1], 0x44),
                         _mm512_shuffle_f32x4(in[2 * i], in[2 * i + 1], 0xEE));
  // u[i]: quarter q four partial sums of in[4i + q] (0x88 takes quarters 0, 2, 0xDD 1, 3).
  for (std::size_t i = 0; i < 4; ++i)
    u[i] = _mm512_add_ps(_mm512_shuffle_f32x4(t[2 * i], t[2 * i + 1], 0x88),
                         _mm512_shuffle_f32x4(t[2 * i], t[2 * i + 1], 0xDD));
  // v[i]: lanes 0 and 1 of quarter q the sums of in[8i + q] and in[8i + 4 + q] (0x4E swaps the
  // lanes' pairs: lane 0 adds lane 2, lane 1 lane 3).
  for (std::size_t i = 0; i < 2; ++i) {
    const __m512 w = _mm512_add_ps(_mm512_unpacklo_ps(u[2 * i], u[2 * i + 1]), _mm512_unpackhi_ps(u[2 * i], u[2 * i + 1]));
    v[i] = _mm512_add_ps(w, _mm512_permute_ps(w, 0x4E));
  }
  // Quarter k: the sums of in[k], in[k + 4], in[k + 8], in[k + 12].
  return _mm512_shuffle_ps(v[0], v[1], 0x44);
#elif defined(__AVX__)
  return xsimd::haddp(acc);
#else
  alignas(64) float sums[kWidth];
  for (std::size_t j = 0; j < kWidth; ++j) sums[j] = sum_of_lanes(acc[j]);
  return Floats::load_aligned(sums);
#endif
}

// Whether decode_scores spreads the lines it asks for over its chunks of dimensions rather than
// asking for all before them: where a vector holds 16 floats. On AVX2, whose score loop already
// wants more than its 16 vector registers, bfloat16 decoding ran 0.85x spread.
constexpr bool kSpreadScorePrefetches = kWidth == 16;

// Rows of K to fetch into L2 while a chunk's scores are taken (decode_scores): `bytes` from `keys`
// on. None where bytes is 0.
struct KeysAhead {
  const char* keys = nullptr;
  std::size_t bytes = 0;
};

// scores[r * kFewRowsKeyBlock + j] = factor * query r . key j for the Rows query rows at `queries`
// (packed by P::pack_query, head_columns apart) and the kWidth / Rows key rows keys(j). The rows'
// chunks stay in registers while each key's chunk is loaded once; accumulator r * Keys + j is
// (row r, key j), and sums_of_each reduces the kWidth of them to one vector of the chunk's scores.
// The lines `ahead` are asked for a few at a time, before each chunk of dimensions' products
// (kSpreadScorePrefetches), not in one burst: a burst fills the core's line fill buffers and the
// products behind it wait for memory.
template <class P, std::size_t Rows, class KeyRows>
[[gnu::always_inline]] inline void decode_scores(const KeyRows& keys,
                                                 const float* queries, std::size_t head_columns,
                                                 std::size_t head_dim, float factor, float* scores,
                                                 const KeysAhead& ahead) {
  constexpr std::size_t Keys = kWidth / Rows;
  const std::size_t whole = head_dim / P::kChunk * P::kChunk;
  // Each chunk of dimensions asks for its share of the lines, a whole number of them; without the
  // spread, all go before the first (prefetch_rows, whose loop keeps AVX2's score loop as it was:
  // the spread's counters cost it 11-13% more instructions even asking for all at once).
  if constexpr (!kSpreadScorePrefetches) prefetch_rows(ahead.keys, 1, 0, ahead.bytes);
  const std::size_t chunks = whole / P::kChunk;
  const std::size_t share = chunks == 0 ? ahead.bytes : (ahead.bytes + 64 * chunks - 1) / (64 * chunks) * 64;
  std::size_t at = 0;
  const auto fetch = [&](std::size_t more) {
    for (const std::size_t end = smaller(at + more, ahead.bytes); at < end; at += 64) __builtin_prefetch(ahead.keys + at, 0, 2);
  };
  // Consecutive keys of a known length, with K ahead of as many bytes as their own rows (all but a
  // task's last chunk of keys): each chunk of dimensions asks for the same number of lines,
  // unrolled from one offset, with none of the counters' loops, compares and selects, scalar work
  // that would otherwise share the loop with its FMAs.
  constexpr std::size_t kFixedLines = [] {
    if constexpr (requires { KeyRows::kRowLength; }) {
      constexpr std::size_t bytes = Keys * KeyRows::kRowLength * sizeof(typename P::Element);
      constexpr std::size_t chunks = KeyRows::kRowLength / P::kChunk;
      if (KeyRows::kRowLength % P::kChunk == 0 && bytes % (64 * chunks) == 0) return bytes / (64 * chunks);
    }
    return std::size_t{0};
  }();
  const bool fixed = kFixedLines != 0 && ahead.bytes == kFixedLines * 64 * chunks;
  Floats acc[kWidth];
#pragma GCC unroll 16
  for (std::size_t a = 0; a < kWidth; ++a) acc[a] = Floats(0.0f);
  for (std::size_t d = 0; d < whole; d += P::kChunk) {
    if constexpr (kSpreadScorePrefetches) {
      if (fixed) {
        const std::size_t first = d / P::kChunk * kFixedLines * 64;
#pragma GCC unroll 16
        for (std::size_t l = 0; l < kFixedLines; ++l) __builtin_prefetch(ahead.keys + first + 64 * l, 0, 2);
      } else {
        fetch(share);
      }
    }
    typename P::QueryChunk q[Rows];
#pragma GCC unroll 4
    for (std::size_t r = 0; r < Rows; ++r) q[r] = P::load_query(queries + r * head_columns, d);
#pragma GCC unroll 16
    for (std::size_t j = 0; j < Keys; ++j) {
      const typename P::KeyChunk k = P::load_key(keys(j), d);
#pragma GCC unroll 4
      for (std::size_t r = 0; r < Rows; ++r) acc[r * Keys + j] = P::multiply_add(q[r], k, acc[r * Keys + j]);
    }
  }
  if constexpr (kSpreadScorePrefetches) {
    if (!fixed) fetch(ahead.bytes);
  }
  alignas(64) float sums[kWidth];
  (sums_of_each(acc) * Floats(factor)).store_aligned(sums);
#pragma GCC unroll 4
  for (std::size_t r = 0; r < Rows; ++r) __builtin_memcpy(scores + r * kFewRowsKeyBlock, sums + r * Keys, sizeof(float) * Keys);
  if (whole < head_dim)
    for (std::size_t r = 0; r < Rows; ++r) {
      for (std::size_t j = 0; j < Keys; ++j) {
        float sum = 0.0f;
        for (std::size_t d = whole; d < head_dim; ++d)
          sum += P::query_element(queries + r * head_columns, d) * widen(keys(j)[d]);
        scores[r * kFewRowsKeyBlock + j] += factor * sum;
      }
    }
}

// The online softmax step of one row over its `keys` scores (base 2, masked): the scores become
// weights exp2(score - new max), the row's max and sum move on, and the factor by which its
// earlier output must shrink is returned. As in flash's update_softmax, a row that has seen no
// visible key keeps max -inf and weighs against 0, and a NaN score gives a NaN weight.
[[gnu::always_inline]] inline float decode_softmax(float* scores, std::size_t keys, float& row_max, float& row_sum) {
  const std::size_t whole = keys / kWidth * kWidth;
  Floats max_vector(row_max);
  for (std::size_t j = 0; j < whole; j += kWidth) max_vector = xsimd::max(max_vector, Floats::load_unaligned(scores + j));
  float new_max = max_of_lanes(max_vector);
  for (std::size_t j = whole; j < keys; ++j) new_max = scores[j] > new_max ? scores[j] : new_max;
  const float base = new_max == kMinusInfinity ? 0.0f : new_max;
  Floats sum_vector(0.0f);
  for (std::size_t j = 0; j < whole; j += kWidth) {
    const Floats weight = exp2_nonpositive(Floats::load_unaligned(scores + j) - Floats(base));
    weight.store_unaligned(scores + j);
    sum_vector += weight;
  }
  float sum = sum_of_lanes(sum_vector);
  if (whole < keys) {
    alignas(64) float tail[kWidth];
    for (std::size_t x = 0; x < kWidth; ++x) tail[x] = whole + x < keys ? scores[whole + x] - base : kMinusInfinity;
    const Floats weight = exp2_nonpositive(Floats::load_aligned(tail));
    weight.store_aligned(tail);
    for (std::size_t j = whole; j < keys; ++j) {
      scores[j] = tail[j - whole];
      sum += scores[j];
    }
  }
  alignas(64) float factor[kWidth];
  exp2_nonpositive(Floats(row_max - base)).store_aligned(factor);
  row_sum = row_sum * factor[0] + sum;
  row_max = new_max;
  return factor[0];
}

// outputs[r][c] = rescale[r] * outputs[r][c] + sum over j < keys of weight (r, j) * values[j][c]
// for Rows rows and the Chunks chunks of columns at `values` (rows value_stride apart): weight
// (r, j) at weights[r * step.row + j * step.key], and packed with that of key j + 1 (j even) at
// packed[r * step.pair_row + j / 2 * step.pair_key]; outputs output_stride apart, in P's position
// order. `zeros` (as many columns) stands for the row past the last key when P takes keys two at
// a time. Each step of keys asks for the next lines of `ahead` (LinesAhead) until none is left.
struct WeightSteps {
  std::size_t row, key, pair_row, pair_key;
};
// Lines to fetch into L2 between P V's products, per_step lines a step of keys: [next, end), 64
// bytes apart.
struct LinesAhead {
  const char* next = nullptr;
  const char* end = nullptr;
  std::size_t per_step = 1;

  // The lines of `bytes` from `first` on, as evenly as whole lines go over `steps` steps.
  static LinesAhead over(const char* first, std::size_t bytes, std::size_t steps) {
    const std::size_t lines = (bytes + 63) / 64;
    return {first, first + bytes, steps == 0 || lines <= steps ? 1 : (lines + steps - 1) / steps};
  }
};
template <class P, std::size_t Rows, std::size_t Chunks>
[[gnu::always_inline]] inline void decode_accumulate(const float* weights, WeightSteps step, const float* packed,
                                                     std::size_t keys,
                                                     const typename P::Element* values,
                                                     const typename P::Element* zeros, std::size_t value_stride,
                                                     float* outputs, std::size_t output_stride, const float* rescale,
                                                     LinesAhead& ahead) {
  Floats acc[Rows][2 * Chunks];
#pragma GCC unroll 4
  for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 4
    for (std::size_t x = 0; x < 2 * Chunks; ++x)
      acc[r][x] = Floats::load_aligned(outputs + r * output_stride + x * kWidth) * Floats(rescale[r]);
  const auto add = [&](std::size_t j, const typename P::Element* row, const typename P::Element* next) {
    for (std::size_t l = 0; l < ahead.per_step && ahead.next < ahead.end; ++l, ahead.next += 64)
      __builtin_prefetch(ahead.next, 0, 2);
    typename P::ValueChunk v[Chunks];
#pragma GCC unroll 4
    for (std::size_t c = 0; c < Chunks; ++c) v[c] = P::load_values(row + c * P::kChunk, next + c * P::kChunk);
#pragma GCC unroll 4
    for (std::size_t r = 0; r < Rows; ++r) {
      const typename P::Weight w =
          P::weight(weights + r * step.row + j * step.key, packed + r * step.pair_row + j / 2 * step.pair_key, j);
#pragma GCC unroll 4
      for (std::size_t c = 0; c < Chunks; ++c) P::accumulate(w, v[c], acc[r][2 * c], acc[r][2 * c + 1]);
    }
  };
  // Pairs of keys while two are left, then the last key with `zeros`: the loop chooses no row.
  std::size_t j = 0;
  if constexpr (P::kKeysPerStep == 2) {
    for (; j + 1 < keys; j += 2) add(j, values + j * value_stride, values + (j + 1) * value_stride);
    if (j < keys) add(j, values + j * value_stride, zeros);
  } else {
    for (; j < keys; ++j) add(j, values + j * value_stride, values + j * value_stride);
  }
#pragma GCC unroll 4
  for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 4
    for (std::size_t x = 0; x < 2 * Chunks; ++x) acc[r][x].store_aligned(outputs + r * output_stride + x * kWidth);
}

// The steps of keys decode_accumulate_rows takes over `keys` keys: one pass over them for each
// group of chunks of columns it accumulates at once (the columns past the last whole chunk take
// no step).
template <class P>
std::size_t accumulate_steps(std::size_t keys, std::size_t value_dim) {
  const std::size_t chunks = value_dim / P::kChunk;
  return (chunks / kDecodeValueChunks + chunks % kDecodeValueChunks) * ((keys + P::kKeysPerStep - 1) / P::kKeysPerStep);
}

// decode_accumulate over every column of V for Rows rows: whole chunks kDecodeValueChunks at a
// time, then one, then the columns past the last whole chunk in order. The lines of `ahead` are
// asked for per_step a step of keys, and those left after the last whole chunk at once.
template <class P, std::size_t Rows>
[[gnu::always_inline]] inline void decode_accumulate_rows(const float* weights, WeightSteps step, const float* packed,
                                                          std::size_t keys,
                                                          const typename P::Element* values,
                                                          const typename P::Element* zeros, std::size_t value_dim,
                                                          float* outputs, std::size_t output_stride,
                                                          const float* rescale, LinesAhead ahead = {}) {
  const std::size_t whole = value_dim / P::kChunk * P::kChunk;
  std::size_t column = 0;
  for (; column + kDecodeValueChunks * P::kChunk <= whole; column += kDecodeValueChunks * P::kChunk)
    decode_accumulate<P, Rows, kDecodeValueChunks>(weights, step, packed, keys, values + column, zeros + column, value_dim,
                                                   outputs + column, output_stride, rescale, ahead);
  for (; column < whole; column += P::kChunk)
    decode_accumulate<P, Rows, 1>(weights, step, packed, keys, values + column, zeros + column, value_dim, outputs + column,
                                  output_stride, rescale, ahead);
  if (ahead.next < ahead.end) prefetch_rows(ahead.next, 1, 0, static_cast<std::size_t>(ahead.end - ahead.next));
  for (; column < value_dim; ++column)
    for (std::size_t r = 0; r < Rows; ++r) {
      float sum = outputs[r * output_stride + column] * rescale[r];
      for (std::size_t j = 0; j < keys; ++j)
        sum += weights[r * step.row + j * step.key] * widen(values[j * value_dim + column]);
      outputs[r * output_stride + column] = sum;
    }
}

// f.template operator()<Rows>(r) for chunks [r, r + Rows) that cover rows [0, rows): of four
// while four remain, then of two and one.
template <class F>
[[gnu::always_inline]] inline void for_row_chunks(std::size_t rows, const F& f) {
  std::size_t r = 0;
  for (; r + 4 <= rows; r += 4) f.template operator()<4>(r);
  if (r + 2 <= rows) {
    f.template operator()<2>(r);
    r += 2;
  }
  if (r < rows) f.template operator()<1>(r);
}

// A task's inputs: the first of its rows of Q (a group's rows are contiguous in Q: those of the
// group's heads, each head's seq_q in turn), and its group's K and V.
template <class Element>
struct TaskInputs {
  const Element* q;
  const Element* k;
  const Element* v;
};
template <class Element>
TaskInputs<Element> task_inputs(const ElementFlashCall<Element>& call, const DecodeTask& task) {
  const AttentionShape& s = call.shape;
  const std::size_t group_heads = s.heads / s.kv_heads;
  const std::size_t first_head = task.group / s.kv_heads * s.heads + task.group % s.kv_heads * group_heads;
  return {call.q + (first_head * s.seq_q + task.first_row) * s.head_dim, call.k + task.group * s.seq_k * s.head_dim,
          call.v + task.group * s.seq_k * s.value_dim};
}

// The task with flash's register blocks (the task's rows at least kBlockColumns).
template <class Element>
void decode_many_rows(const ElementFlashCall<Element>& call, const DecodeTask& task, float* scratch) {
  const AttentionShape& s = call.shape;
  const DecodeLayout l = decode_layout_of<Element>(s);
  const TaskInputs<Element> inputs = task_inputs(call, task);
  const Element* const q = inputs.q;
  const Element* const k = inputs.k;
  const Element* const v = inputs.v;
  float* const queries = scratch + l.queries;
  float* const scores = scratch + l.scores;
  float* const outputs = scratch + l.outputs;
  float* const row_max = scratch + l.row_max;
  float* const row_sum = scratch + l.row_sum;
  float* const rescale = scratch + l.rescale;
  float* const zero_key = scratch + l.zero_key;
  const std::size_t groups = round_up(task.rows, kBlockColumns) / kBlockColumns;
  const std::size_t blocks = round_up(task.rows, kBlockRows) / kBlockRows;

  pack_queries(q, task.rows, groups, s.head_dim, call.query_factor, queries);
  // P V of the last block may read weight columns past the last group, which no score fills.
  for (std::size_t j = 0; j < kKeyTile; ++j)
    for (std::size_t r = groups * kBlockColumns; r < blocks * kBlockRows; ++r) scores[j * kQueryTile + r] = 0.0f;
  for (std::size_t r = 0; r < kQueryTile; ++r) {
    row_max[r] = kMinusInfinity;
    row_sum[r] = 0.0f;
  }
  for (std::size_t x = 0; x < blocks * kBlockRows * l.value_columns; ++x) outputs[x] = 0.0f;
  for (std::size_t d = 0; d < s.head_dim; ++d) zero_key[d] = 0.0f;
  const std::size_t whole_columns = s.value_dim / kWidth * kWidth;

  for (std::size_t key0 = task.key_begin; key0 < task.key_end; key0 += kKeyTile) {
    const std::size_t keys = smaller(kKeyTile, task.key_end - key0);
    const FloatRows rows = float_rows(k, v, key0, keys, s, scratch + l.key_block, scratch + l.value_block);
    for (std::size_t g = 0; g < groups; ++g)
      for (std::size_t j0 = 0; j0 < keys; j0 += kBlockRows) {
        // The group's keys and values kDecodePrefetchKeys ahead, spread over the first group's
        // scores: a part of a line each dimension's step (rows_ahead rows of each over head_dim
        // steps).
        const std::size_t ahead = key0 + j0 + kDecodePrefetchKeys;
        const std::size_t rows_ahead = g == 0 && ahead < task.key_end ? smaller(kBlockRows, task.key_end - ahead) : 0;
        const char* const keys_ahead = rows_ahead != 0 ? reinterpret_cast<const char*>(k + ahead * s.head_dim) : nullptr;
        const char* const values_ahead = rows_ahead != 0 ? reinterpret_cast<const char*>(v + ahead * s.value_dim) : nullptr;
        const std::size_t value_step_bytes = (rows_ahead * s.value_dim + s.head_dim - 1) / s.head_dim * sizeof(Element);
        const auto step = [&](std::size_t d) {
          if (rows_ahead == 0) return;
          __builtin_prefetch(keys_ahead + d * rows_ahead * sizeof(Element), 0, 2);
          __builtin_prefetch(values_ahead + d * value_step_bytes, 0, 2);
        };
        const float* block[kBlockRows];
        for (std::size_t i = 0; i < kBlockRows; ++i)
          block[i] = j0 + i < keys ? rows.keys + (j0 + i) * s.head_dim : zero_key;
        score_block(KeyPointers<float>{block}, queries + g * s.head_dim * kBlockColumns, s.head_dim,
                    scores + j0 * kQueryTile + g * kBlockColumns, step);
      }
    // Each row's causal limit and mask, down its column of scores: the rows' queries repeat from
    // head to head, so limits do not grow with the row as in a flash tile.
    for (std::size_t r = 0; r < task.rows; ++r) {
      const std::size_t i = (task.first_row + r) % s.seq_q;
      const std::size_t limit = visible_keys(call.window, i);
      const std::size_t visible = limit <= key0 ? 0 : smaller(keys, limit - key0);
      if (call.mask != nullptr) {
        const float* const mask = call.mask + i * s.seq_k + key0;
        for (std::size_t j = 0; j < visible; ++j) scores[j * kQueryTile + r] += mask[j] * kLog2e;
      }
      for (std::size_t j = visible; j < keys; ++j) scores[j * kQueryTile + r] = kMinusInfinity;
    }
    for (std::size_t r0 = 0; r0 < groups * kBlockColumns; r0 += kWidth)
      update_softmax(scores + r0, keys, row_max + r0, row_sum + r0, rescale + r0);
    const float* const values = rows.values;
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t r0 = b * kBlockRows;
      float* const block_outputs = outputs + r0 * l.value_columns;
      const Finish none{};
      std::size_t column = 0;
      for (; column + kBlockColumns <= whole_columns; column += kBlockColumns)
        accumulate_block<kBlockVectors>(scores + r0, keys, values + column, s.value_dim, block_outputs + column,
                                        l.value_columns, rescale + r0, false, nullptr, none);
      for (; column < whole_columns; column += kWidth)
        accumulate_block<1>(scores + r0, keys, values + column, s.value_dim, block_outputs + column,
                            l.value_columns, rescale + r0, false, nullptr, none);
      for (; column < s.value_dim; ++column)
        for (std::size_t r = r0; r < r0 + kBlockRows; ++r) {
          float sum = outputs[r * l.value_columns + column] * rescale[r];
          for (std::size_t j = 0; j < keys; ++j) sum += scores[j * kQueryTile + r] * values[j * s.value_dim + column];
          outputs[r * l.value_columns + column] = sum;
        }
    }
  }
  for (std::size_t r = 0; r < task.rows; ++r) {
    task.row_max[r] = row_max[r];
    task.row_sum[r] = row_sum[r];
    for (std::size_t c = 0; c < s.value_dim; ++c)
      task.outputs[r * task.value_stride + c] = outputs[r * l.value_columns + c];
  }
}

// The task's outputs back in column order from P's, where P permutes them.
template <class P>
void put_in_order(const DecodeTask& task, std::size_t value_dim) {
  if constexpr (P::kPermuted) {
    const std::size_t whole_columns = value_dim / P::kChunk * P::kChunk;
    for (std::size_t r = 0; r < task.rows; ++r)
      for (std::size_t c0 = 0; c0 < whole_columns; c0 += P::kChunk) {
        float* const chunk = task.outputs + r * task.value_stride + c0;
        alignas(64) float accumulated[P::kChunk];
        for (std::size_t x = 0; x < P::kChunk; ++x) accumulated[x] = chunk[x];
        for (std::size_t x = 0; x < P::kChunk; ++x) chunk[x] = accumulated[P::position(x)];
      }
  }
}

// The task with rows in chunks of four (fewer rows than kBlockColumns).
template <class Element>
void decode_few_rows(const ElementFlashCall<Element>& call, const DecodeTask& task, float* scratch) {
  using P = FewRowsProducts<Element>;
  const AttentionShape& s = call.shape;
  const DecodeLayout l = decode_layout_of<Element>(s);
  const TaskInputs<Element> inputs = task_inputs(call, task);
  const Element* const q = inputs.q;
  const Element* const k = inputs.k;
  const Element* const v = inputs.v;
  float* const queries = scratch + l.queries;
  float* const scores = scratch + l.scores;
  float* const rescale = scratch + l.rescale;
  float* const weights = scratch + l.weights;
  const Element* const zeros = reinterpret_cast<const Element*>(scratch + l.zero_values);
  for (std::size_t c = 0; c < s.value_dim; ++c) scratch[l.zero_values + c] = 0.0f;
  // Row r of the task is query query_of(r) of its head.
  const auto query_of = [&](std::size_t r) { return (task.first_row + r) % s.seq_q; };

  for (std::size_t r = 0; r < task.rows; ++r) {
    P::pack_query(q + r * s.head_dim, s.head_dim, queries + r * l.head_columns);
    task.row_max[r] = kMinusInfinity;
    task.row_sum[r] = 0.0f;
    for (std::size_t c = 0; c < task.value_stride; ++c) task.outputs[r * task.value_stride + c] = 0.0f;
  }

  // One thread's own loads leave memory idle too often to stream at its speed, so the task asks
  // for its lines ahead, spread over all of its arithmetic, for memory idles during any step that
  // asks for none: the keys kDecodePrefetchKeys ahead during the first chunk's scores, the next
  // block's values during the first chunk's P V, the first block's values here.
  prefetch_rows(v + task.key_begin * s.value_dim, 1, 0,
                smaller(kFewRowsKeyBlock, task.key_end - task.key_begin) * s.value_dim);
  for (std::size_t key0 = task.key_begin; key0 < task.key_end; key0 += kFewRowsKeyBlock) {
    const std::size_t keys = smaller(kFewRowsKeyBlock, task.key_end - key0);
    const Element* const block_keys = k + key0 * s.head_dim;
    const Element* const block_values = v + key0 * s.value_dim;
    for_row_chunks(task.rows, [&]<std::size_t Rows>(std::size_t r0) {
      constexpr std::size_t Keys = kWidth / Rows;
      for (std::size_t j0 = 0; j0 < keys; j0 += Keys) {
        const std::size_t ahead = key0 + j0 + kDecodePrefetchKeys;
        KeysAhead keys_ahead;
        if (r0 == 0 && ahead < task.key_end)
          keys_ahead = {reinterpret_cast<const char*>(k + ahead * s.head_dim),
                        smaller(Keys, task.key_end - ahead) * s.head_dim * sizeof(Element)};
        float* const chunk_scores = scores + r0 * kFewRowsKeyBlock + j0;
        // The common head dimensions, a whole chunk of keys: consecutive rows from one pointer at
        // a compile-time stride (ConsecutiveKeys), the dimensions' loop of a known length. With a
        // pointer a key, GCC kept pointers in vector registers and on the stack, and a key's chunk
        // on the stack between its two widening operations.
        const auto consecutive = [&]<std::size_t HeadDim>() {
          static_assert(HeadDim % kAlignFloats == 0, "the packed query rows are HeadDim apart");
          if (s.head_dim != HeadDim || j0 + Keys > keys) return false;
          decode_scores<P, Rows>(ConsecutiveKeys<Element, HeadDim, Keys>{block_keys + j0 * HeadDim},
                                 queries + r0 * HeadDim, HeadDim, HeadDim, call.query_factor, chunk_scores, keys_ahead);
          return true;
        };
        if (consecutive.template operator()<128>() || consecutive.template operator()<64>()) continue;
        // A block's last keys past its end repeat its last key: their scores are never used.
        const Element* chunk_keys[Keys];
        for (std::size_t j = 0; j < Keys; ++j) chunk_keys[j] = block_keys + smaller(j0 + j, keys - 1) * s.head_dim;
        decode_scores<P, Rows>([&](std::size_t j) { return chunk_keys[j]; }, queries + r0 * l.head_columns,
                               l.head_columns, s.head_dim, call.query_factor, chunk_scores, keys_ahead);
      }
    });
    for (std::size_t r = 0; r < task.rows; ++r) {
      float* const row = scores + r * kFewRowsKeyBlock;
      const std::size_t i = query_of(r);
      // Keys from `visible` on are past the row's causal limit.
      const std::size_t limit = visible_keys(call.window, i);
      const std::size_t visible = limit <= key0 ? 0 : smaller(keys, limit - key0);
      if (call.mask != nullptr) {
        const float* const mask = call.mask + i * s.seq_k + key0;
        for (std::size_t j = 0; j < visible; ++j) row[j] += mask[j] * kLog2e;
      }
      for (std::size_t j = visible; j < keys; ++j) row[j] = kMinusInfinity;
      rescale[r] = decode_softmax(row, keys, task.row_max[r], task.row_sum[r]);
      P::weigh(row, keys, weights + r * kFewRowsKeyBlock / 2);
    }
    const std::size_t next = key0 + kFewRowsKeyBlock;
    const LinesAhead next_values =
        next < task.key_end ? LinesAhead::over(reinterpret_cast<const char*>(v + next * s.value_dim),
                                               smaller(kFewRowsKeyBlock, task.key_end - next) * s.value_dim * sizeof(Element),
                                               accumulate_steps<P>(keys, s.value_dim))
                            : LinesAhead{};
    for_row_chunks(task.rows, [&]<std::size_t Rows>(std::size_t r0) {
      decode_accumulate_rows<P, Rows>(scores + r0 * kFewRowsKeyBlock, {kFewRowsKeyBlock, 1, kFewRowsKeyBlock / 2, 1},
                                      weights + r0 * kFewRowsKeyBlock / 2, keys,
                                      block_values, zeros, s.value_dim, task.outputs + r0 * task.value_stride,
                                      task.value_stride, rescale + r0, r0 == 0 ? next_values : LinesAhead{});
    });
  }

  put_in_order<P>(task, s.value_dim);
}

// The columns accumulate_lanes keeps in registers: half of AVX-512's 32 vector registers, half of
// AVX2's and SSE2's 16.
constexpr std::size_t kLaneColumns = kWidth == 16 ? 16 : 8;

// P V of a block with the task's rows in the lanes (decode_lane_rows), for kColumns value columns
// from `elements`: O^T, value_dim vectors of kWidth rows, kColumns of them in registers across the
// block's keys; a key adds (its weights, one vector down S^T) times (its value in the column,
// broadcast: the FMA's memory operand) to each. The few-rows way loads each value chunk once for
// every chunk of four rows and each weight once for every chunk of columns; here a value is read
// once for all the rows. Float values are broadcast where they are; bfloat16 values are widened
// first, the chunk's columns of the block's keys into a buffer (2 KiB for 16 columns): widened a
// whole block at a time, with the keys', they overflowed L1. The value rows kDecodePrefetchKeys
// after the first `ahead_keys` keys are fetched into L2, a line a key (callers pass ahead_keys for
// one chunk of each line, 0 for the others): spread over the loop, where a burst of a block's
// lines stalled on the prefetches themselves.
template <std::size_t kColumns, class Element>
[[gnu::always_inline]] inline void accumulate_lanes(const float* scores, std::size_t keys, const Element* elements,
                                                    std::size_t value_stride, float* outputs_t, Floats rescale,
                                                    std::size_t ahead_keys) {
  const float* values;
  std::size_t stride = value_stride;
  alignas(64) float widened[kDecodeKeyBlock * kColumns];
  if constexpr (std::is_same_v<Element, float>) {
    values = elements;
  } else {
    widen_rows(elements, keys, kColumns, value_stride, widened, kColumns);
    values = widened;
    stride = kColumns;
  }
  Floats acc[kColumns];
#pragma GCC unroll 16
  for (std::size_t c = 0; c < kColumns; ++c) acc[c] = Floats::load_aligned(outputs_t + c * kWidth) * rescale;
  for (std::size_t j = 0; j < keys; ++j) {
    const float* const row = values + j * stride;
    if (j < ahead_keys) __builtin_prefetch(elements + (j + kDecodePrefetchKeys) * value_stride, 0, 2);
    const Floats weights = Floats::load_aligned(scores + j * kQueryTile);
#pragma GCC unroll 16
    for (std::size_t c = 0; c < kColumns; ++c) acc[c] = multiply_add(weights, Floats(row[c]), acc[c]);
  }
#pragma GCC unroll 16
  for (std::size_t c = 0; c < kColumns; ++c) acc[c].store_aligned(outputs_t + c * kWidth);
}

// The task of exactly kWidth rows without a mask (four queries of a group of four heads where a
// vector holds 16 floats), of floats or of bfloat16: the rows in the lanes of one vector, as a
// flash group's columns are. The scores take one FMA (vdpbf16ps: a pair of dimensions) a key and
// dimension, a broadcast key element against the vector of the rows' query elements, with nothing
// to reduce (score_block or score_pairs on one vector of rows, kBlockRows keys at a time); the
// online softmax runs down the keys for every row at once (update_softmax), where the few-rows task
// reduces each row's vector of scores twice; P V with the rows in the lanes as well
// (accumulate_lanes), or with vdpbf16ps as the few-rows task takes it (FewRowsProducts), each pair
// of weights from S^T packed as flash packs them (pack_weight_pairs).
//
// How such a task packs its queries, reads a group of keys, takes its scores and packs its weights,
// by element type and ISA: a policy with Key, pack_query, group_keys, score and weigh.
template <class Element>
struct LaneProducts;
// The rows of kWidth floats that score_block takes: Q^T times the query factor, the keys as
// floats. For floats the keys are read where they are; for bfloat16 without AVX512-BF16, each
// group of kBlockRows keys is widened into the thread's scratch first, once for all the rows: a
// whole block at a time overflowed L1 beside the values (accumulate_lanes). With AVX512-BF16, the
// pairs below.
template <class Element>
struct FloatLaneProducts {
  using Key = float;
  static void pack_query(const Element* row, std::size_t r, std::size_t head_dim, float factor, float* queries) {
    for (std::size_t d = 0; d < head_dim; ++d) queries[d * kWidth + r] = widen(row[d]) * factor;
  }
  // The `keys` key rows from k (a group of at most kBlockRows) as score reads them, head_dim apart.
  static const float* group_keys(const Element* k, std::size_t keys, std::size_t head_dim, float* key_block) {
    if constexpr (std::is_same_v<Element, float>) {
      return k;
    } else {
      widen_rows(k, keys, head_dim, head_dim, key_block, head_dim);
      return key_block;
    }
  }
  template <class Keys, class Step>
  [[gnu::always_inline]] static void score(const Keys& keys, const float* queries, std::size_t head_dim, float,
                                           float* scores, const Step& step) {
    score_block<1>(keys, queries, head_dim, scores, step);
  }
  static void weigh(const float*, std::size_t, float*) {}
};
template <>
struct LaneProducts<float> : FloatLaneProducts<float> {};
#if !defined(__AVX512BF16__)
template <>
struct LaneProducts<bfloat16> : FloatLaneProducts<bfloat16> {};
#else
template <>
struct LaneProducts<bfloat16> {
  using Key = bfloat16;
  static const bfloat16* group_keys(const bfloat16* k, std::size_t, std::size_t, float*) { return k; }
  // Q^T as pairs of dimensions: head_pairs rows of kWidth, zero past an odd head_dim; unscaled,
  // for score_pairs scales the scores.
  static void pack_query(const bfloat16* row, std::size_t r, std::size_t head_dim, float, float* queries) {
    auto* const pairs = reinterpret_cast<Pair*>(queries);
    for (std::size_t d = 0; d < head_dim; d += 2)
      pairs[d / 2 * kWidth + r] = row[d].bits | (d + 1 < head_dim ? Pair{row[d + 1].bits} << 16 : 0);
  }
  template <class Keys, class Step>
  [[gnu::always_inline]] static void score(const Keys& keys, const float* queries, std::size_t head_dim, float factor,
                                           float* scores, const Step& step) {
    score_pairs<1>(keys, reinterpret_cast<const Pair*>(queries), head_dim, factor, scores, step);
  }
  // The weights of S^T as the pairs Bf16PairProducts::weight reads, kQueryTile apart.
  static void weigh(const float* scores, std::size_t keys, float* packed) {
    pack_weight_pairs(scores, keys, reinterpret_cast<Pair*>(packed));
  }
};
#endif
static_assert(round_up(kDecodeKeyBlock, kBlockRows) <= kKeyTile, "S^T of a block fits flash's scores");

template <class Element>
void decode_lane_rows(const ElementFlashCall<Element>& call, const DecodeTask& task, float* scratch) {
  using P = FewRowsProducts<Element>;
  using L = LaneProducts<Element>;
  const AttentionShape& s = call.shape;
  const DecodeLayout l = decode_layout_of<Element>(s);
  const TaskInputs<Element> inputs = task_inputs(call, task);
  const Element* const q = inputs.q;
  const Element* const k = inputs.k;
  const Element* const v = inputs.v;
  float* const queries = scratch + l.queries;  // Q^T, as L::pack_query packs it
  float* const scores = scratch + l.scores;  // S^T: a block's keys kQueryTile apart, as flash's
  float* const weight_pairs = scratch + l.weights;
  float* const row_max = scratch + l.row_max;
  float* const row_sum = scratch + l.row_sum;
  float* const rescale = scratch + l.rescale;
  using Key = typename L::Key;
  const Key* const zero_key = reinterpret_cast<const Key*>(scratch + l.zero_key);  // zeros either way
  float* const zeros = scratch + l.zero_values;
  for (std::size_t d = 0; d < s.head_dim; ++d) scratch[l.zero_key + d] = 0.0f;
  for (std::size_t c = 0; c < s.value_dim; ++c) zeros[c] = 0.0f;
  // P V with the rows in the lanes (accumulate_lanes), into O^T, where the products are float FMAs;
  // through vdpbf16ps, whose products take pairs of keys, as the few-rows task takes it.
  constexpr bool kValuesInLanes = std::is_same_v<typename L::Key, float>;
  constexpr std::size_t kBlock = kValuesInLanes ? kDecodeKeyBlock : kPairedLaneKeyBlock;
  static_assert(round_up(kBlock, kBlockRows) <= kKeyTile, "S^T of a block fits flash's scores");
  float* const outputs_t = scratch + l.outputs;
  for (std::size_t r = 0; r < kWidth; ++r) {
    L::pack_query(q + r * s.head_dim, r, s.head_dim, call.query_factor, queries);
    row_max[r] = kMinusInfinity;
    row_sum[r] = 0.0f;
  }
  if constexpr (kValuesInLanes)
    for (std::size_t x = 0; x < s.value_dim * kWidth; ++x) outputs_t[x] = 0.0f;
  else
    for (std::size_t r = 0; r < kWidth; ++r)
      for (std::size_t c = 0; c < s.value_dim; ++c) task.outputs[r * task.value_stride + c] = 0.0f;

  // Every row sees the keys before the least of the rows' causal limits: blocks before it skip the
  // masking loop, which takes a division a row.
  std::size_t all_visible = task.key_end;
  for (std::size_t r = 0; r < kWidth; ++r)
    all_visible = smaller(all_visible, visible_keys(call.window, (task.first_row + r) % s.seq_q));
  for (std::size_t key0 = task.key_begin; key0 < task.key_end; key0 += kBlock) {
    const std::size_t keys = smaller(kBlock, task.key_end - key0);
    for (std::size_t j0 = 0; j0 < keys; j0 += kBlockRows) {
      const std::size_t in_group = smaller(kBlockRows, keys - j0);
      const Key* const group = L::group_keys(k + (key0 + j0) * s.head_dim, in_group, s.head_dim, scratch + l.key_block);
      // The kBlockRows keys kDecodePrefetchKeys ahead, contiguous, a line or so a step of the
      // scores' loop over dimensions (key_step_bytes a step, 48 for floats, 24 for bfloat16,
      // whose loop steps by pairs); their values a few rows at a time between blocks of
      // arithmetic, below. A block's keys and values at once stalled on the prefetches themselves.
      const std::size_t ahead = key0 + j0 + kDecodePrefetchKeys;
      const std::size_t key_step_bytes =
          ahead < task.key_end ? smaller(kBlockRows, task.key_end - ahead) * sizeof(Element) : 0;
      const char* const ahead_keys = reinterpret_cast<const char*>(k + ahead * s.head_dim);
      const auto step = [&](std::size_t d) {
        if (key_step_bytes != 0) __builtin_prefetch(ahead_keys + d * key_step_bytes, 0, 2);
      };
      float* const block_scores = scores + j0 * kQueryTile;
      // The common head dimensions, a whole block's keys as consecutive rows (ConsecutiveKeys):
      // kBlockRows at a time, and the rest of the block (32 = 12 + 12 + 8 where kBlockRows is 12,
      // 64 = 5 x 12 + 4). The scores of the keys past the block's are never read.
      const auto score_consecutive = [&]<std::size_t HeadDim>() {
        constexpr std::size_t kLastKeys = kBlock % kBlockRows;
        if (in_group == kBlockRows)
          L::score(ConsecutiveKeys<Key, HeadDim, kBlockRows>{group}, queries, HeadDim, call.query_factor, block_scores, step);
        else if (kLastKeys != 0 && in_group == kLastKeys)
          L::score(ConsecutiveKeys<Key, HeadDim, kLastKeys>{group}, queries, HeadDim, call.query_factor, block_scores, step);
        else
          return false;
        return true;
      };
      if (s.head_dim == 128 && score_consecutive.template operator()<128>()) continue;
      if (s.head_dim == 64 && score_consecutive.template operator()<64>()) continue;
      const Key* block[kBlockRows];
      for (std::size_t i = 0; i < kBlockRows; ++i) block[i] = i < in_group ? group + i * s.head_dim : zero_key;
      L::score(KeyPointers<Key>{block}, queries, s.head_dim, call.query_factor, block_scores, step);
    }
    // Keys from `visible` on are past the row's causal limit.
    if (key0 + keys > all_visible)
      for (std::size_t r = 0; r < kWidth; ++r) {
        const std::size_t limit = visible_keys(call.window, (task.first_row + r) % s.seq_q);
        const std::size_t visible = limit <= key0 ? 0 : smaller(keys, limit - key0);
        for (std::size_t j = visible; j < keys; ++j) scores[j * kQueryTile + r] = kMinusInfinity;
      }
    update_softmax(scores, keys, row_max, row_sum, rescale);
    if constexpr (kValuesInLanes) {
      const std::size_t ahead = key0 + kDecodePrefetchKeys;
      const std::size_t ahead_keys = ahead < task.key_end ? smaller(keys, task.key_end - ahead) : 0;
      const Floats factors = Floats::load_aligned(rescale);
      const Element* const values = v + key0 * s.value_dim;
      std::size_t c = 0;
      for (; c + kLaneColumns <= s.value_dim; c += kLaneColumns)
        accumulate_lanes<kLaneColumns>(scores, keys, values + c, s.value_dim, outputs_t + c * kWidth, factors,
                                       c * sizeof(Element) % 64 == 0 ? ahead_keys : 0);
      for (; c < s.value_dim; ++c) accumulate_lanes<1>(scores, keys, values + c, s.value_dim, outputs_t + c * kWidth, factors, 0);
    } else {
      L::weigh(scores, keys, weight_pairs);
      for_row_chunks(kWidth, [&]<std::size_t Rows>(std::size_t r0) {
        // The value rows kDecodePrefetchKeys ahead, shared among the chunks of four rows (kWidth / 4
        // of them), each asking for its share over its steps of P V (a line a pair of keys at head
        // dimension 128): asked for in a burst before each chunk, the chunk's first loads waited
        // behind them.
        constexpr std::size_t kChunkKeys = kBlock * 4 / kWidth;
        const std::size_t ahead = key0 + kDecodePrefetchKeys + r0 / 4 * kChunkKeys;
        const LinesAhead lines =
            ahead < task.key_end
                ? LinesAhead::over(reinterpret_cast<const char*>(v + ahead * s.value_dim),
                                   smaller(kChunkKeys, task.key_end - ahead) * s.value_dim * sizeof(Element),
                                   accumulate_steps<P>(keys, s.value_dim))
                : LinesAhead{};
        decode_accumulate_rows<P, Rows>(scores + r0, {1, kQueryTile, 1, kQueryTile}, weight_pairs + r0, keys,
                                        v + key0 * s.value_dim, reinterpret_cast<const Element*>(zeros), s.value_dim,
                                        task.outputs + r0 * task.value_stride, task.value_stride, rescale + r0, lines);
      });
    }
  }
  for (std::size_t r = 0; r < kWidth; ++r) {
    task.row_max[r] = row_max[r];
    task.row_sum[r] = row_sum[r];
  }
  if constexpr (kValuesInLanes) {
    for (std::size_t r = 0; r < kWidth; ++r)
      for (std::size_t c = 0; c < s.value_dim; ++c) task.outputs[r * task.value_stride + c] = outputs_t[c * kWidth + r];
  } else {
    put_in_order<P>(task, s.value_dim);
  }
}

template <class Element>
void decode(const ElementFlashCall<Element>& call, const DecodeTask& task, float* scratch) {
  if (task.rows == kWidth && call.mask == nullptr) {
    decode_lane_rows(call, task, scratch);
    return;
  }
  if (task.rows >= kBlockColumns)
    decode_many_rows(call, task, scratch);
  else
    decode_few_rows(call, task, scratch);
}

}  // namespace

}  // namespace attention::simd::ATTENTION_SIMD_NAMESPACE
