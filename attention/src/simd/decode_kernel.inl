// The body of a per-ISA Flash-Decoding task, included by flash_kernel.inl after its helpers
// (Floats, multiply_add, exp2_nonpositive, ...), in the same translation unit and namespaces.
//
// Decoding is a few queries against many keys: too few query rows to share a flash task's tiles,
// and K and V too large to stay in any cache, so the time is the time to stream them, and the
// arithmetic must keep out of the way of the loads. A task therefore takes every query row that
// reads one key/value head (the query heads of its group, each with its seq_q queries) and walks
// a range of keys once: per block of kDecodeKeyBlock keys, the scores of all its rows (each key
// row read from memory once, then from L1 for the other rows), the online softmax of each row,
// and P V into each row's output (each value row likewise). The caller splits the keys so that
// there are tasks enough for every thread, and combines the partial results of a row's splits
// exactly (decode_sdpa.cpp).
//
// Two ways through a block, by the task's rows:
//  - fewer than flash's kBlockColumns (one query of a group of four heads; four queries, 16 rows,
//    where a vector holds 16 floats): both products take the rows in chunks of up to four, with
//    no packing of K or V. For the scores, a chunk's query rows stay in registers while each key
//    is loaded once, one accumulator per (row, key), kWidth of them, reduced at the end to one
//    vector of the chunk's scores (decode_scores); for P V, a chunk's output rows accumulate over
//    the block's keys in registers, a few vectors of columns at a time, each value vector loaded
//    once for the chunk (decode_accumulate). Rows are read as pairs of vectors (load_pair), which
//    is where bfloat16 K and V are widened, in registers, with two integer operations a pair and
//    no permute: a bfloat16 pair holds its even columns in its first vector and its odd ones in
//    its second. Q is packed in that order and the outputs accumulate in it, put back in order
//    when the task ends. Head and value dimensions past their last whole pair are computed
//    element by element;
//  - more (four queries of four heads where a vector holds 8 floats; many queries): flash's own
//    register-blocked products (score_block, update_softmax, accumulate_block), the rows packed
//    as flash packs a query tile (they are contiguous in Q, as a tile's are), bfloat16 K and V
//    widened a block of keys at a time into scratch.

namespace attention::simd::ATTENTION_SIMD_NAMESPACE {

namespace {

constexpr std::size_t kDecodeTaskRows = 64;
constexpr std::size_t kDecodeKeyBlock = 32;
// Elements of a pair of vectors.
constexpr std::size_t kPair = 2 * kWidth;
// Pairs of value columns a chunk of P V accumulates at once: 4 rows x 2 pairs are 16 of AVX-512's
// 32 registers; AVX2 and SSE2 have 16 registers, so one pair.
constexpr std::size_t kDecodeValuePairs = kWidth == 16 ? 2 : 1;
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
  std::size_t queries;        // few rows: kDecodeTaskRows x head_columns, the rows times query_factor
                              // in pair order; many: flash's packing of kQueryTile rows (pack_queries)
  std::size_t scores;         // few rows: kDecodeTaskRows x kDecodeKeyBlock; many: flash's S^T,
                              // kKeyTile x kQueryTile; the scores, then the weights
  std::size_t outputs;        // many rows: kQueryTile x value_columns, unnormalised
  std::size_t row_max;        // many rows: kQueryTile running maxima, sums and rescale factors
  std::size_t row_sum;
  std::size_t rescale;        // kQueryTile factors exp2(old max - new max) of the current block
  std::size_t zero_key;       // head_dim zeros: the keys of a block past its end
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
  const auto larger = [](std::size_t a, std::size_t b) { return a > b ? a : b; };
  l.queries = region(larger(kDecodeTaskRows * l.head_columns, kQueryTile * s.head_dim));
  l.scores = region(larger(kDecodeTaskRows * kDecodeKeyBlock, kKeyTile * kQueryTile));
  l.outputs = region(kQueryTile * l.value_columns);
  l.row_max = region(kQueryTile);
  l.row_sum = region(kQueryTile);
  l.rescale = region(kQueryTile);
  l.zero_key = region(s.head_dim);
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

// The kPair elements at p as two vectors of floats. Float rows give them in order. A bfloat16
// row is loaded as kWidth 32-bit words of two elements; x86 being little-endian, a word's low
// half is the even column, which becomes a float shifted into the high half, and its high half
// is the odd column, a float once the low half is cleared. So a bfloat16 pair's first vector
// holds the even columns and its second the odd ones (pair_position).
[[gnu::always_inline]] inline void load_pair(const float* p, Floats& first, Floats& second) {
  first = Floats::load_unaligned(p);
  second = Floats::load_unaligned(p + kWidth);
}
[[gnu::always_inline]] inline void load_pair(const bfloat16* p, Floats& first, Floats& second) {
  const Bits words = Bits::load_unaligned(reinterpret_cast<const std::int32_t*>(p));
  first = xsimd::bitwise_cast<Floats>(words << 16);
  second = xsimd::bitwise_cast<Floats>(words & Bits(static_cast<std::int32_t>(0xFFFF0000u)));
}

// Where column x of a pair lands in the two vectors load_pair gives (lane x of first is 0 to
// kWidth - 1, lane x of second kWidth to kPair - 1).
template <class Element>
constexpr std::size_t pair_position(std::size_t x) {
  if constexpr (std::is_same_v<Element, float>)
    return x;
  else
    return x % 2 * kWidth + x / 2;
}

// The sum of the lanes of x, without xsimd's hadd, whose AVX-512 one needs AVX512DQ.
float sum_of_lanes(Floats x) {
  alignas(64) float lanes[kWidth];
  x.store_aligned(lanes);
  float sum = 0.0f;
  for (const float lane : lanes) sum += lane;
  return sum;
}

// Lane j of the result is the sum of the lanes of acc[j]: xsimd's haddp where it needs no more
// than this file's ISA (its AVX-512 one needs AVX512DQ), for AVX-512 the halves of each vector
// added first and then two of AVX's.
[[gnu::always_inline]] inline Floats sums_of_each(const Floats (&acc)[kWidth]) {
#if defined(__AVX512F__)
  using Half = xsimd::batch<float, xsimd::avx>;
  Half halves[kWidth];
  for (std::size_t j = 0; j < kWidth; ++j)
    halves[j] = Half(_mm512_castps512_ps256(acc[j])) +
                Half(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(acc[j]), 1)));
  const __m256 low = xsimd::haddp(halves);
  const __m256 high = xsimd::haddp(halves + Half::size);
  return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(low)), _mm256_castps_pd(high), 1));
#elif defined(__AVX__)
  return xsimd::haddp(acc);
#else
  alignas(64) float sums[kWidth];
  for (std::size_t j = 0; j < kWidth; ++j) sums[j] = sum_of_lanes(acc[j]);
  return Floats::load_aligned(sums);
#endif
}

// scores[r * kDecodeKeyBlock + j] = query r . key j for the Rows packed query rows at `queries`
// (head_columns apart) and the kWidth / Rows keys at keys[j]. The rows' pairs stay in registers
// while each key's pair is loaded once; accumulator r * Keys + j is (row r, key j), and
// sums_of_each reduces the kWidth of them to one vector of the chunk's scores.
template <std::size_t Rows, class Element>
[[gnu::always_inline]] inline void decode_scores(const Element* const (&keys)[kWidth / Rows], const float* queries,
                                                 std::size_t head_columns, std::size_t head_dim, float* scores) {
  constexpr std::size_t Keys = kWidth / Rows;
  const std::size_t whole = head_dim / kPair * kPair;
  Floats acc[kWidth];
#pragma GCC unroll 16
  for (std::size_t a = 0; a < kWidth; ++a) acc[a] = Floats(0.0f);
  for (std::size_t d = 0; d < whole; d += kPair) {
    Floats q[Rows][2];
#pragma GCC unroll 4
    for (std::size_t r = 0; r < Rows; ++r) {
      q[r][0] = Floats::load_aligned(queries + r * head_columns + d);
      q[r][1] = Floats::load_aligned(queries + r * head_columns + d + kWidth);
    }
#pragma GCC unroll 16
    for (std::size_t j = 0; j < Keys; ++j) {
      Floats first, second;
      load_pair(keys[j] + d, first, second);
#pragma GCC unroll 4
      for (std::size_t r = 0; r < Rows; ++r)
        acc[r * Keys + j] = multiply_add(q[r][1], second, multiply_add(q[r][0], first, acc[r * Keys + j]));
    }
  }
  alignas(64) float sums[kWidth];
  sums_of_each(acc).store_aligned(sums);
#pragma GCC unroll 4
  for (std::size_t r = 0; r < Rows; ++r) __builtin_memcpy(scores + r * kDecodeKeyBlock, sums + r * Keys, sizeof(float) * Keys);
  if (whole < head_dim)
    for (std::size_t r = 0; r < Rows; ++r)
      for (std::size_t j = 0; j < Keys; ++j)
        for (std::size_t d = whole; d < head_dim; ++d)
          scores[r * kDecodeKeyBlock + j] += queries[r * head_columns + d] * widen(keys[j][d]);
}

// The online softmax step of one row over its `keys` scores (base 2, masked): the scores become
// weights exp2(score - new max), the row's max and sum move on, and the factor by which its
// earlier output must shrink is returned. As in flash's update_softmax, a row that has seen no
// visible key keeps max -inf and weighs against 0, and a NaN score gives a NaN weight.
[[gnu::always_inline]] inline float decode_softmax(float* scores, std::size_t keys, float& row_max, float& row_sum) {
  const std::size_t whole = keys / kWidth * kWidth;
  Floats max_vector(row_max);
  for (std::size_t j = 0; j < whole; j += kWidth) max_vector = xsimd::max(max_vector, Floats::load_unaligned(scores + j));
  alignas(64) float lanes[kWidth];
  max_vector.store_aligned(lanes);
  float new_max = row_max;
  for (const float lane : lanes) new_max = lane > new_max ? lane : new_max;
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

// outputs[r][c] = rescale[r] * outputs[r][c] + sum over j < keys of weights[r][j] * values[j][c]
// for Rows rows (weights kDecodeKeyBlock apart, outputs output_stride apart, in pair order) and
// the Pairs pairs of columns at `values` (rows value_stride apart).
template <std::size_t Rows, std::size_t Pairs, class Element>
[[gnu::always_inline]] inline void decode_accumulate(const float* weights, std::size_t keys, const Element* values,
                                                     std::size_t value_stride, float* outputs, std::size_t output_stride,
                                                     const float* rescale) {
  constexpr std::size_t Vectors = 2 * Pairs;
  Floats acc[Rows][Vectors];
#pragma GCC unroll 4
  for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 4
    for (std::size_t x = 0; x < Vectors; ++x)
      acc[r][x] = Floats::load_aligned(outputs + r * output_stride + x * kWidth) * Floats(rescale[r]);
  for (std::size_t j = 0; j < keys; ++j, values += value_stride) {
    Floats v[Vectors];
#pragma GCC unroll 4
    for (std::size_t p = 0; p < Pairs; ++p) load_pair(values + p * kPair, v[2 * p], v[2 * p + 1]);
#pragma GCC unroll 4
    for (std::size_t r = 0; r < Rows; ++r) {
      const Floats w(weights[r * kDecodeKeyBlock + j]);
#pragma GCC unroll 4
      for (std::size_t x = 0; x < Vectors; ++x) acc[r][x] = multiply_add(w, v[x], acc[r][x]);
    }
  }
#pragma GCC unroll 4
  for (std::size_t r = 0; r < Rows; ++r)
#pragma GCC unroll 4
    for (std::size_t x = 0; x < Vectors; ++x) acc[r][x].store_aligned(outputs + r * output_stride + x * kWidth);
}

// decode_accumulate over every column of V for Rows rows: whole pairs kDecodeValuePairs at a time,
// then one, then the columns past the last whole pair in order.
template <std::size_t Rows, class Element>
[[gnu::always_inline]] inline void decode_accumulate_rows(const float* weights, std::size_t keys, const Element* values,
                                                          std::size_t value_dim, float* outputs,
                                                          std::size_t output_stride, const float* rescale) {
  const std::size_t whole = value_dim / kPair * kPair;
  std::size_t column = 0;
  for (; column + kDecodeValuePairs * kPair <= whole; column += kDecodeValuePairs * kPair)
    decode_accumulate<Rows, kDecodeValuePairs>(weights, keys, values + column, value_dim, outputs + column,
                                               output_stride, rescale);
  for (; column < whole; column += kPair)
    decode_accumulate<Rows, 1>(weights, keys, values + column, value_dim, outputs + column, output_stride, rescale);
  for (; column < value_dim; ++column)
    for (std::size_t r = 0; r < Rows; ++r) {
      float sum = outputs[r * output_stride + column] * rescale[r];
      for (std::size_t j = 0; j < keys; ++j)
        sum += weights[r * kDecodeKeyBlock + j] * widen(values[j * value_dim + column]);
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

// The task with flash's register blocks (the task's rows at least kBlockColumns).
template <class Element>
void decode_many_rows(const ElementFlashCall<Element>& call, const DecodeTask& task, float* scratch) {
  const AttentionShape& s = call.shape;
  const DecodeLayout l = decode_layout_of<Element>(s);
  const std::size_t group_heads = s.heads / s.kv_heads;
  const std::size_t first_head = task.group / s.kv_heads * s.heads + task.group % s.kv_heads * group_heads;
  const Element* const k = call.k + task.group * s.seq_k * s.head_dim;
  const Element* const v = call.v + task.group * s.seq_k * s.value_dim;
  float* const queries = scratch + l.queries;
  float* const scores = scratch + l.scores;
  float* const outputs = scratch + l.outputs;
  float* const row_max = scratch + l.row_max;
  float* const row_sum = scratch + l.row_sum;
  float* const rescale = scratch + l.rescale;
  float* const zero_key = scratch + l.zero_key;
  const std::size_t groups = round_up(task.rows, kBlockColumns) / kBlockColumns;
  const std::size_t blocks = round_up(task.rows, kBlockRows) / kBlockRows;

  // The rows are contiguous in Q: those of the group's heads, each head's seq_q in turn.
  pack_queries(call.q + (first_head * s.seq_q + task.first_row) * s.head_dim, task.rows, groups, s.head_dim,
               call.query_factor, queries);
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
        // As the few-row path prefetches: kDecodePrefetchKeys ahead, a few rows at a time.
        const std::size_t ahead = key0 + j0 + kDecodePrefetchKeys;
        if (g == 0 && ahead < task.key_end) {
          const std::size_t rows_ahead = smaller(kBlockRows, task.key_end - ahead);
          prefetch_rows(k + ahead * s.head_dim, 1, 0, rows_ahead * s.head_dim);
          prefetch_rows(v + ahead * s.value_dim, 1, 0, rows_ahead * s.value_dim);
        }
        const float* block[kBlockRows];
        for (std::size_t i = 0; i < kBlockRows; ++i)
          block[i] = j0 + i < keys ? rows.keys + (j0 + i) * s.head_dim : zero_key;
        score_block(block, queries + g * s.head_dim * kBlockColumns, s.head_dim,
                    scores + j0 * kQueryTile + g * kBlockColumns);
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

// The task with rows in chunks of four (fewer rows than kBlockColumns).
template <class Element>
void decode_few_rows(const ElementFlashCall<Element>& call, const DecodeTask& task, float* scratch) {
  const AttentionShape& s = call.shape;
  const DecodeLayout l = decode_layout_of<Element>(s);
  const std::size_t group_heads = s.heads / s.kv_heads;
  const std::size_t first_head = task.group / s.kv_heads * s.heads + task.group % s.kv_heads * group_heads;
  const Element* const k = call.k + task.group * s.seq_k * s.head_dim;
  const Element* const v = call.v + task.group * s.seq_k * s.value_dim;
  float* const queries = scratch + l.queries;
  float* const scores = scratch + l.scores;
  float* const rescale = scratch + l.rescale;
  // Row r of the task is query i of head first_head + g.
  const auto query_of = [&](std::size_t r) { return (task.first_row + r) % s.seq_q; };
  const auto head_of = [&](std::size_t r) { return first_head + (task.first_row + r) / s.seq_q; };
  const std::size_t whole_dims = s.head_dim / kPair * kPair;

  for (std::size_t r = 0; r < task.rows; ++r) {
    const Element* const q = call.q + (head_of(r) * s.seq_q + query_of(r)) * s.head_dim;
    float* const row = queries + r * l.head_columns;
    for (std::size_t d = 0; d < s.head_dim; ++d) {
      const std::size_t at = d < whole_dims ? d / kPair * kPair + pair_position<Element>(d % kPair) : d;
      row[at] = widen(q[d]) * call.query_factor;
    }
    task.row_max[r] = kMinusInfinity;
    task.row_sum[r] = 0.0f;
    for (std::size_t c = 0; c < task.value_stride; ++c) task.outputs[r * task.value_stride + c] = 0.0f;
  }

  for (std::size_t key0 = task.key_begin; key0 < task.key_end; key0 += kDecodeKeyBlock) {
    const std::size_t keys = smaller(kDecodeKeyBlock, task.key_end - key0);
    const Element* const block_keys = k + key0 * s.head_dim;
    const Element* const block_values = v + key0 * s.value_dim;
    for_row_chunks(task.rows, [&]<std::size_t Rows>(std::size_t r0) {
      constexpr std::size_t Keys = kWidth / Rows;
      for (std::size_t j0 = 0; j0 < keys; j0 += Keys) {
        // The keys and values kDecodePrefetchKeys ahead, fetched into L2 a few rows at a time
        // between the first chunk's blocks of arithmetic: one thread's own loads leave memory
        // idle too often to stream at its speed.
        const std::size_t ahead = key0 + j0 + kDecodePrefetchKeys;
        if (r0 == 0 && ahead < task.key_end) {
          const std::size_t rows_ahead = smaller(Keys, task.key_end - ahead);
          prefetch_rows(k + ahead * s.head_dim, 1, 0, rows_ahead * s.head_dim);
          prefetch_rows(v + ahead * s.value_dim, 1, 0, rows_ahead * s.value_dim);
        }
        // A block's last keys past its end repeat its last key: their scores are never used.
        const Element* chunk_keys[Keys];
        for (std::size_t j = 0; j < Keys; ++j) chunk_keys[j] = block_keys + smaller(j0 + j, keys - 1) * s.head_dim;
        decode_scores<Rows>(chunk_keys, queries + r0 * l.head_columns, l.head_columns, s.head_dim,
                            scores + r0 * kDecodeKeyBlock + j0);
      }
    });
    for (std::size_t r = 0; r < task.rows; ++r) {
      float* const row = scores + r * kDecodeKeyBlock;
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
    }
    for_row_chunks(task.rows, [&]<std::size_t Rows>(std::size_t r0) {
      decode_accumulate_rows<Rows>(scores + r0 * kDecodeKeyBlock, keys, block_values, s.value_dim,
                                   task.outputs + r0 * task.value_stride, task.value_stride, rescale + r0);
    });
  }

  // The outputs back in column order from pair order.
  if constexpr (!std::is_same_v<Element, float>) {
    const std::size_t whole_columns = s.value_dim / kPair * kPair;
    for (std::size_t r = 0; r < task.rows; ++r)
      for (std::size_t c0 = 0; c0 < whole_columns; c0 += kPair) {
        float* const pair = task.outputs + r * task.value_stride + c0;
        alignas(64) float packed[kPair];
        for (std::size_t x = 0; x < kPair; ++x) packed[x] = pair[x];
        for (std::size_t x = 0; x < kPair; ++x) pair[x] = packed[pair_position<Element>(x)];
      }
  }
}

template <class Element>
void decode(const ElementFlashCall<Element>& call, const DecodeTask& task, float* scratch) {
  if (task.rows >= kBlockColumns)
    decode_many_rows(call, task, scratch);
  else
    decode_few_rows(call, task, scratch);
}

}  // namespace

}  // namespace attention::simd::ATTENTION_SIMD_NAMESPACE
