// The bfloat16 flash and decode kernels on AMX tiles, included by flash_kernel_amxbf16.cpp after
// flash_kernel.inl (whose helpers it uses: exp2_nonpositive, pack_query_pairs, pack_value_pairs,
// bfloat16_lanes), in the same translation unit and namespaces.
//
// A tile register holds up to 16 rows of 64 bytes; tdpbf16ps C += A B takes A as 16 rows of 16
// words, each word a pair of bfloat16 along the summed index, and B as 16 rows of 16 such words
// whose row is the pair and whose column is C's column: 16 x 16 x 32 products an instruction,
// a few times vdpbf16ps' rate on the CPUs that have AMX (calibration/bf16_peak).
//
// Rows are taken 16 at a time (a row group: one tile of query rows), keys a block at a time, and
// a block's steps for one row group are:
//  - S^T = K Q^T: A is 16 rows of K read in place (32 head dimensions of 16 consecutive keys,
//    head_dim apart), B the row group's queries packed once per task as pairs of head dimensions
//    (pack_query_pairs: a row of pairs is a pair's 16 queries), C a tile of 16 keys x 16 queries,
//    stored as S^T (a key's scores TileExtent::score_row apart), so that an online softmax runs
//    down it with the rows in the lanes (weigh_block);
//  - the weights rounded to bfloat16 and paired by keys in registers (a vector of the 16 rows'
//    words per pair of keys, as B would take P^T), then transposed, 16 x 16 words, into A's
//    layout of P: a query row's 16 pairs of keys;
//  - O += P V: B is the block's values packed once per block for every row group
//    (pack_value_pairs: a pair of keys per row, a column's two values per word; decoding's one row
//    group packs a span of them at a time, just before that span's products), C a tile of 16 rows
//    x 16 columns of O, loaded from the row group's float outputs in scratch and stored back.
// The output rows are rescaled in scratch only when a block moves a row's base (kLazyRange).
//
// The kernels take head_dim a multiple of 32 and value_dim a multiple of 16, whole tiles; other
// shapes, and decode tasks of fewer than 16 rows, go to avx512f's kernels (untiled).

namespace attention::simd::ATTENTION_SIMD_NAMESPACE {

namespace {

// Query rows of a row group, keys of a score tile, pairs of a tile row.
constexpr std::size_t kTileRows = 16;
// Keys of a block, the unit of the online softmax, whose steps each take all the block's row groups
// (see attend_tiles): flash's, whose K and V serve every row group of its query tile, and
// decoding's, whose one row group reads each key once, so that its crossings between tiles and
// vectors are fewer. A block's products go by spans of 64 keys: four tiles of S^T, and two tiles
// of P (32 keys each) per load and store of a tile of O.
constexpr std::size_t kFlashBlockKeys = 64;
constexpr std::size_t kDecodeBlockKeys = 256;
constexpr std::size_t kSpanKeys = 64;
constexpr std::size_t kWeightTileWords = kTileRows * kTileRows;  // one tile of P: 16 rows x 16 pairs
constexpr std::size_t kTileHeadStep = 32;  // head dimensions of one S^T product
// A flash task on tiles takes up to six query tiles (kQueryTile rows each), so that each block of
// keys, its values paired once, serves up to 36 row groups (at S = 512, one task a head).
constexpr std::size_t kMaxTaskTiles = 6;
constexpr std::size_t kTaskRows = kMaxTaskTiles * kQueryTile;

// What a kind of task keeps in scratch: its rows, the keys of its blocks, and the floats between a
// key's scores in S^T (score_row). Flash's S^T rows are a line longer than its rows, 37 lines, so
// that consecutive keys' lines fall in all 64 sets of L1, where 36 would reach 16; decoding's one
// row group takes a line a key, so that a block's scores are one run of 16 KiB.
struct TileExtent {
  std::size_t rows;
  std::size_t block_keys;
  std::size_t score_row;
};
constexpr TileExtent kFlashExtent{kTaskRows, kFlashBlockKeys, kTaskRows + 16};
constexpr TileExtent kDecodeExtent{kTileRows, kDecodeBlockKeys, kTileRows};
static_assert(kWidth == kTileRows, "a row group's scores are one vector of rows");
static_assert(kQueryTile % kTileRows == 0 && kQueryTile % kBlockColumns == 0);

bool tiles_take(const AttentionShape& s) { return s.head_dim % kTileHeadStep == 0 && s.value_dim % kTileRows == 0; }

// Offsets of the regions of a thread's scratch for the tasks of an extent `e`.
struct TileLayout {
  TileExtent e;
  std::size_t queries;   // pack_query_pairs of e.rows rows: (rows / 32, rounded up) x head_dim / 2 x 32 words
  std::size_t scores;    // S^T of a block, e.block_keys rows of e.score_row
  std::size_t weights;   // each row group's P as A: a tile of 16 x 16 words per 32 keys of a block
  std::size_t values;    // a flash block's values paired, or a decode span's: kFlashBlockKeys / 2 x
                         // value_dim words
  std::size_t keys;      // a block that ends inside a span: its keys, zeros to the span's end
  std::size_t outputs;   // e.rows x value_dim unnormalised output rows
  std::size_t row_max;   // e.rows each: base (weigh_block), sum, rescale factor, visible keys
  std::size_t row_sum;
  std::size_t rescale;
  std::size_t limits;
  std::size_t thread_floats;
};

TileLayout tile_layout_of(const AttentionShape& s, const TileExtent& e) {
  TileLayout l{};
  l.e = e;
  std::size_t at = 0;
  const auto region = [&at](std::size_t floats) {
    const std::size_t start = at;
    at += round_up(floats, kAlignFloats);
    return start;
  };
  l.queries = region(round_up(e.rows, kBlockColumns) * s.head_dim / 2);
  l.scores = region(e.block_keys * e.score_row);
  l.weights = region(e.rows / kTileRows * e.block_keys / 32 * kWeightTileWords);
  l.values = region(larger(kFlashBlockKeys, kSpanKeys) / 2 * s.value_dim);
  l.keys = region(e.block_keys * s.head_dim / 2);
  l.outputs = region(e.rows * s.value_dim);
  l.row_max = region(e.rows);
  l.row_sum = region(e.rows);
  l.rescale = region(e.rows);
  l.limits = region(e.rows);
  l.thread_floats = at;
  return l;
}

// The kernels tasks that tiles do not take go to: avx512f's, which widen (every CPU with AMX has
// AVX-512F, and on the CPUs with AMX so far its vdpbf16ps is slower than the widened FMAs).
const Bf16FlashKernels& untiled() { return avx512f::kBf16FlashKernels; }

std::size_t tile_thread_floats(const AttentionShape& s) {
  return larger(tile_layout_of(s, kFlashExtent).thread_floats, untiled().thread_floats(s));
}

std::size_t tile_decode_thread_floats(const AttentionShape& s) {
  return larger(tile_layout_of(s, kDecodeExtent).thread_floats, untiled().decode_thread_floats(s));
}

// out[r] = column r of the 16 x 16 words `in` (in[p] is row p), bit for bit. Pairs of rows are
// interleaved word by word, then pairs of those by 64-bit halves, which leaves in each 128-bit
// lane L of u[4i + k] the words 4L + k of rows 4i to 4i + 3; two rounds of 128-bit lane shuffles
// then gather lane L of u[k], u[4 + k], u[8 + k] and u[12 + k] into column 4L + k.
[[gnu::always_inline]] inline void transpose_16x16(const __m512i (&in)[16], __m512i (&out)[16]) {
  __m512i t[16], u[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(in[i], in[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(in[i], in[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    u[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
    u[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
    u[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
    u[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    // 0x88 takes lanes 0 and 2 of each operand, 0xdd lanes 1 and 3.
    const __m512i a = _mm512_shuffle_i32x4(u[k], u[4 + k], 0x88), b = _mm512_shuffle_i32x4(u[k], u[4 + k], 0xdd);
    const __m512i c = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0x88), d = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0xdd);
    out[k] = _mm512_shuffle_i32x4(a, c, 0x88);
    out[8 + k] = _mm512_shuffle_i32x4(a, c, 0xdd);
    out[4 + k] = _mm512_shuffle_i32x4(b, d, 0x88);
    out[12 + k] = _mm512_shuffle_i32x4(b, d, 0xdd);
  }
}

// What a block step needs of its task: where the rows' state lives and how each row is masked.
struct TileTask {
  const Pair* queries;          // pack_query_pairs of the task's rows
  std::size_t head_pairs;       // head_dim / 2
  std::size_t head_dim;
  std::size_t value_dim;
  float query_factor;
  float* scores;
  std::size_t score_row;        // floats between a key's scores
  Pair* weights;                // P of each row group, as accumulate_tiles takes it,
  std::size_t group_weight_words;  // one block's tiles of P apart
  const Pair* values;           // flash: the block's values, paired
  float* outputs;               // rows value_dim apart
  float* row_max;               // per row, its base
  float* row_sum;
  float* rescale;
  const float* limits;          // per row, its visible keys (a count from key 0)
};

// Keys and values a block or more ahead of the one being computed, prefetched into L2 a key at a
// time while a row group of the block is weighed (flash's first, decoding's only one): a task
// streams K and V, and the tiles' loads of K's rows, a line of each of 16 keys, are not a pattern
// the hardware prefetchers follow.
struct Ahead {
  const char* keys = nullptr;  // nullptr: nothing to prefetch
  const char* values = nullptr;
  std::size_t keys_ahead = 0;  // keys there
  std::size_t key_bytes = 0;
  std::size_t value_bytes = 0;
  [[gnu::always_inline]] void prefetch(std::size_t j) const {
    if (j >= keys_ahead) return;
    for (std::size_t b = 0; b < key_bytes; b += 64) __builtin_prefetch(keys + j * key_bytes + b, 0, 2);
    for (std::size_t b = 0; b < value_bytes; b += 64) __builtin_prefetch(values + j * value_bytes + b, 0, 2);
  }
};

// A base-2 score may exceed its row's base by this much before the base moves up to it: a row's
// earlier outputs are rescaled only then, not whenever a block raises its max, and its weights
// stay below 2^kLazyRange, far from float's and bfloat16's limits. The sums and outputs are
// relative to the same base, so the result is the softmax's, whatever the base.
constexpr float kLazyRange = 8.0f;

// The online softmax step of a row group over a block, as update_softmax with two differences:
// the base of each row (kept in row_max, where the other kernels keep the max) moves only when a
// score passes it by more than kLazyRange, and the weights go straight to P's layout as A, without
// a pass of their own. Scores are masked first where a row's limit falls in the block: -inf from
// the limit (key j of the block is past row r's iff key0 + j >= limit[r]); with a float mask, they
// are scaled and the mask added. Weights past `keys` are zero. rescale receives each row's factor
// exp2(old base - new base): exactly 1 where the base stayed.
void weigh_block(const TileTask& t, std::size_t r0, std::size_t key0, std::size_t keys, const float* const* masks,
                 const Ahead& ahead) {
  float* const scores = t.scores + r0;
  const Floats limits = Floats::load_aligned(t.limits + r0);
  const auto fold_max = [&](auto score_of) {
    Floats block_max[kChains];
    for (Floats& m : block_max) m = Floats(kMinusInfinity);
    for (std::size_t j = 0; j < keys; ++j) {
      block_max[j % kChains] = xsimd::max(block_max[j % kChains], score_of(scores + j * t.score_row, j));
    }
    Floats highest = block_max[0];
    for (std::size_t c = 1; c < kChains; ++c) highest = xsimd::max(highest, block_max[c]);
    return highest;
  };
  const auto limited = [&](float* row, std::size_t j) {
    const Floats score =
        xsimd::select(Floats(static_cast<float>(key0 + j)) >= limits, Floats(kMinusInfinity), Floats::load_aligned(row));
    score.store_aligned(row);
    return score;
  };
  // Weights exp2(factor x score - base), at most 2^kLazyRange (exp2_nonpositive's steps hold for
  // powers up to 127), summed, and rounded to bfloat16 in pairs of keys (vcvtne2ps2bf16 rounds to
  // nearest even, `first` in the low 16 words, `second` in the high ones, which the interleave
  // pairs lane by lane): 16 pairs of keys of the 16 rows, transposed into A's rows of P. Only the
  // tiles of the spans accumulate_tiles takes: those with a key. Returns their sum and the largest
  // score seen, each folded in two chains (the first and the second key of a pair), in registers.
  struct Weighed {
    Floats sum, highest;
  };
  const __m512i interleave = interleave_halves();
  Pair* const weights = t.weights + r0 / kTileRows * t.group_weight_words;
  const auto write_weights = [&](Floats factor, Floats base) {
    Floats sum[2] = {Floats(0.0f), Floats(0.0f)};
    Floats highest[2] = {Floats(kMinusInfinity), Floats(kMinusInfinity)};
    const auto weight = [&](std::size_t j, std::size_t chain) {
      if (j >= keys) return Floats(0.0f);
      const Floats score = Floats::load_aligned(scores + j * t.score_row);
      highest[chain] = xsimd::max(highest[chain], score);
      return exp2_nonpositive<Exp2Precision::bfloat16>(multiply_add(score, factor, -base));
    };
    const std::size_t tiles = round_up(keys, kSpanKeys) / 32;
    for (std::size_t tile = 0; tile < tiles; ++tile) {
      __m512i pairs[16], rows[16];
      for (std::size_t p = 0; p < 16; ++p) {
        const std::size_t j = 32 * tile + 2 * p;
        ahead.prefetch(j);
        ahead.prefetch(j + 1);
        const Floats first = weight(j, 0), second = weight(j + 1, 1);
        sum[0] += first;
        sum[1] += second;
        pairs[p] = _mm512_permutexvar_epi16(interleave, (__m512i)_mm512_cvtne2ps_pbh(second, first));
      }
      transpose_16x16(pairs, rows);
      for (std::size_t r = 0; r < 16; ++r) _mm512_store_si512(weights + tile * kWeightTileWords + r * 16, rows[r]);
    }
    return Weighed{sum[0] + sum[1], xsimd::max(highest[0], highest[1])};
  };

  // The scores stay unscaled, and the scale (positive) goes into the weights' exponents, except
  // with a mask, which adds to scaled scores.
  Floats factor(t.query_factor);
  const Floats old_base = Floats::load_aligned(t.row_max + r0);
  const bool whole = masks == nullptr && _mm512_reduce_min_ps(limits) >= static_cast<float>(key0 + keys);
  if (whole && !xsimd::any(old_base == Floats(kMinusInfinity))) {
    // Every row sees every key of the block (all of a non-causal call's blocks) and has a base:
    // weighed against it at once, and again below only where a score passes it by kLazyRange.
    const Weighed weighed = write_weights(factor, old_base);
    if (!xsimd::any(weighed.highest * factor > old_base + Floats(kLazyRange))) {
      (Floats::load_aligned(t.row_sum + r0) + weighed.sum).store_aligned(t.row_sum + r0);
      Floats(1.0f).store_aligned(t.rescale + r0);
      return;
    }
  }
  Floats highest;
  if (masks != nullptr) {
    fold_max([&](float* row, std::size_t j) {
      (Floats::load_aligned(row) * factor).store_aligned(row);
      return limited(row, j);
    });
    for (std::size_t r = 0; r < kTileRows; ++r) {
      const auto limit = static_cast<std::size_t>(t.limits[r0 + r]);
      const std::size_t visible = limit <= key0 ? 0 : smaller(keys, limit - key0);
      for (std::size_t j = 0; j < visible; ++j) scores[j * t.score_row + r] += masks[r][key0 + j] * kLog2e;
    }
    highest = fold_max([](float* row, std::size_t) { return Floats::load_aligned(row); });
    factor = Floats(1.0f);
  } else if (whole) {
    highest = fold_max([](float* row, std::size_t) { return Floats::load_aligned(row); }) * factor;
  } else {
    highest = fold_max(limited) * factor;
  }

  // A row's base moves to its new max where that passes it by more than kLazyRange, or where
  // the row had seen no key; a row whose keys have all been masked so far keeps -inf and uses 0.
  const auto moves = (highest > old_base + Floats(kLazyRange)) | (old_base == Floats(kMinusInfinity));
  const Floats new_base = xsimd::select(moves, xsimd::max(old_base, highest), old_base);
  const Floats base = xsimd::select(new_base == Floats(kMinusInfinity), Floats(0.0f), new_base);
  const Floats rescale = xsimd::select(moves, exp2_nonpositive(old_base - base), Floats(1.0f));
  new_base.store_aligned(t.row_max + r0);
  rescale.store_aligned(t.rescale + r0);
  multiply_add(Floats::load_aligned(t.row_sum + r0), rescale, write_weights(factor, base).sum)
      .store_aligned(t.row_sum + r0);
}

// A block's steps for a row group: its scores (score_tiles, or score_span_pair for two row groups),
// weigh_block, rescale_outputs, and P V (accumulate_tiles, or accumulate_span_pair), in that
// order. The weights past the block's keys are zeros, and so are the values (pack_block_values).

// S^T of the span of 64 keys from `keys` (rows of K, head_dim apart) into the rows from `first`
// of the row group's columns of the scores.
void score_span(const TileTask& t, std::size_t r0, const bfloat16* keys, std::size_t first) {
  float* const scores = t.scores + first * t.score_row + r0;
  const Pair* queries = t.queries + (r0 / kBlockColumns) * t.head_pairs * kBlockColumns + r0 % kBlockColumns;
  constexpr std::size_t kQueryStride = kBlockColumns * sizeof(Pair);
  const std::size_t key_stride = t.head_dim * sizeof(bfloat16);
  // S^T, four tiles of 16 keys (0 to 3) over the head dimensions 32 at a time: keys in tiles 4 and
  // 6, queries in 5 and 7, alternating so that a load need not wait for the product before it.
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (std::size_t d = 0; d < t.head_dim; d += 2 * kTileHeadStep) {
    const bfloat16* const k = keys + d;
    _tile_loadd(5, queries + d / 2 * kBlockColumns, kQueryStride);
    _tile_loadd(4, k, key_stride);
    _tile_dpbf16ps(0, 4, 5);
    _tile_loadd(6, k + 16 * t.head_dim, key_stride);
    _tile_dpbf16ps(1, 6, 5);
    _tile_loadd(4, k + 32 * t.head_dim, key_stride);
    _tile_dpbf16ps(2, 4, 5);
    _tile_loadd(6, k + 48 * t.head_dim, key_stride);
    _tile_dpbf16ps(3, 6, 5);
    if (d + kTileHeadStep == t.head_dim) break;
    _tile_loadd(7, queries + (d + kTileHeadStep) / 2 * kBlockColumns, kQueryStride);
    _tile_loadd(4, k + kTileHeadStep, key_stride);
    _tile_dpbf16ps(0, 4, 7);
    _tile_loadd(6, k + kTileHeadStep + 16 * t.head_dim, key_stride);
    _tile_dpbf16ps(1, 6, 7);
    _tile_loadd(4, k + kTileHeadStep + 32 * t.head_dim, key_stride);
    _tile_dpbf16ps(2, 4, 7);
    _tile_loadd(6, k + kTileHeadStep + 48 * t.head_dim, key_stride);
    _tile_dpbf16ps(3, 6, 7);
  }
  const std::size_t score_stride = t.score_row * sizeof(float);
  _tile_stored(0, scores, score_stride);
  _tile_stored(1, scores + 16 * t.score_row, score_stride);
  _tile_stored(2, scores + 32 * t.score_row, score_stride);
  _tile_stored(3, scores + 48 * t.score_row, score_stride);
}

// S^T of a block's `keys` keys `block_keys` (K's rows in place, or a padded copy, zeros to the end
// of its last span) into the row group's columns of the scores, a span at a time.
void score_tiles(const TileTask& t, std::size_t r0, const bfloat16* block_keys, std::size_t keys) {
  for (std::size_t span = 0; span * kSpanKeys < keys; ++span)
    score_span(t, r0, block_keys + span * kSpanKeys * t.head_dim, span * kSpanKeys);
}

// score_span for the two row groups from r0 (a multiple of 32, so that both lie in one group of
// pack_query_pairs), 32 keys at a time: each tile of keys (4, 6) serves both groups' queries (5, 7).
void score_span_pair(const TileTask& t, std::size_t r0, const bfloat16* keys, std::size_t first) {
  const Pair* queries = t.queries + (r0 / kBlockColumns) * t.head_pairs * kBlockColumns;
  constexpr std::size_t kQueryStride = kBlockColumns * sizeof(Pair);
  const std::size_t score_stride = t.score_row * sizeof(float);
  const std::size_t key_stride = t.head_dim * sizeof(bfloat16);
  for (std::size_t half = 0; half < 2; ++half) {
    const bfloat16* const half_keys = keys + 32 * half * t.head_dim;
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (std::size_t d = 0; d < t.head_dim; d += kTileHeadStep) {
      const Pair* const q = queries + d / 2 * kBlockColumns;
      _tile_loadd(5, q, kQueryStride);
      _tile_loadd(4, half_keys + d, key_stride);
      _tile_dpbf16ps(0, 4, 5);
      _tile_loadd(6, half_keys + d + 16 * t.head_dim, key_stride);
      _tile_dpbf16ps(1, 6, 5);
      _tile_loadd(7, q + kTileRows, kQueryStride);
      _tile_dpbf16ps(2, 4, 7);
      _tile_dpbf16ps(3, 6, 7);
    }
    float* const scores = t.scores + (first + 32 * half) * t.score_row + r0;
    _tile_stored(0, scores, score_stride);
    _tile_stored(1, scores + 16 * t.score_row, score_stride);
    _tile_stored(2, scores + kTileRows, score_stride);
    _tile_stored(3, scores + 16 * t.score_row + kTileRows, score_stride);
  }
}

// The rows' earlier outputs shrink where the block moved a row's base (a factor below 1).
void rescale_outputs(const TileTask& t, std::size_t r0) {
  float* const outputs = t.outputs + r0 * t.value_dim;
  const Floats rescale = Floats::load_aligned(t.rescale + r0);
  if (xsimd::any(rescale != Floats(1.0f))) {
    alignas(64) float factors[kTileRows];
    rescale.store_aligned(factors);
    for (std::size_t r = 0; r < kTileRows; ++r) {
      const Floats f(factors[r]);
      float* const row = outputs + r * t.value_dim;
      for (std::size_t c = 0; c < t.value_dim; c += kWidth) (Floats::load_aligned(row + c) * f).store_aligned(row + c);
    }
  }
}

// accumulate_tiles' span: its two tiles of P `weights` (its keys 0-31 and 32-63, in tiles 4 and
// 5) and its values paired `values` (32 rows of value_dim words, in tiles 2 and 3, or 6 and 7 for
// the odd tiles of columns), the outputs 16 columns a tile in tiles 0 and 1.
void accumulate_span(const TileTask& t, std::size_t r0, const Pair* weights, const Pair* values) {
  float* const outputs = t.outputs + r0 * t.value_dim;
  const std::size_t output_stride = t.value_dim * sizeof(float);
  const std::size_t value_stride = t.value_dim * sizeof(Pair);
  const Pair* const second_values = values + 16 * t.value_dim;
  _tile_loadd(4, weights, 64);
  _tile_loadd(5, weights + kWeightTileWords, 64);
  for (std::size_t c = 0; c < t.value_dim; c += 2 * kTileRows) {
    _tile_loadd(0, outputs + c, output_stride);
    _tile_loadd(2, values + c, value_stride);
    _tile_loadd(3, second_values + c, value_stride);
    _tile_dpbf16ps(0, 4, 2);
    _tile_dpbf16ps(0, 5, 3);
    _tile_stored(0, outputs + c, output_stride);
    if (c + kTileRows == t.value_dim) break;
    _tile_loadd(1, outputs + c + kTileRows, output_stride);
    _tile_loadd(6, values + c + kTileRows, value_stride);
    _tile_loadd(7, second_values + c + kTileRows, value_stride);
    _tile_dpbf16ps(1, 4, 6);
    _tile_dpbf16ps(1, 5, 7);
    _tile_stored(1, outputs + c + kTileRows, output_stride);
  }
}

// accumulate_span for the two row groups from r0, each tile of values (2, 3) serving both groups'
// weights (4 and 5, 6 and 7), their outputs in tiles 0 and 1.
void accumulate_span_pair(const TileTask& t, std::size_t r0, std::size_t span) {
  const std::size_t output_stride = t.value_dim * sizeof(float);
  const std::size_t value_stride = t.value_dim * sizeof(Pair);
  const Pair* const values = t.values + span * kSpanKeys / 2 * t.value_dim;
  const Pair* const second_values = values + 16 * t.value_dim;
  const Pair* const weights = t.weights + r0 / kTileRows * t.group_weight_words + span * 2 * kWeightTileWords;
  _tile_loadd(4, weights, 64);
  _tile_loadd(5, weights + kWeightTileWords, 64);
  _tile_loadd(6, weights + t.group_weight_words, 64);
  _tile_loadd(7, weights + t.group_weight_words + kWeightTileWords, 64);
  float* const outputs = t.outputs + r0 * t.value_dim;
  float* const next_outputs = outputs + kTileRows * t.value_dim;
  for (std::size_t c = 0; c < t.value_dim; c += kTileRows) {
    _tile_loadd(0, outputs + c, output_stride);
    _tile_loadd(1, next_outputs + c, output_stride);
    _tile_loadd(2, values + c, value_stride);
    _tile_dpbf16ps(0, 4, 2);
    _tile_dpbf16ps(1, 6, 2);
    _tile_loadd(3, second_values + c, value_stride);
    _tile_dpbf16ps(0, 5, 3);
    _tile_dpbf16ps(1, 7, 3);
    _tile_stored(0, outputs + c, output_stride);
    _tile_stored(1, next_outputs + c, output_stride);
  }
}

// O += P V over the spans of a block's `keys` keys.
void accumulate_tiles(const TileTask& t, std::size_t r0, std::size_t keys) {
  for (std::size_t span = 0; span * kSpanKeys < keys; ++span)
    accumulate_span(t, r0, t.weights + r0 / kTileRows * t.group_weight_words + span * 2 * kWeightTileWords,
                    t.values + span * kSpanKeys / 2 * t.value_dim);
}

// The keys of a block for score_tiles: K's rows in place when the block ends with a whole span,
// else copied into `copy` with zeros to the end of the span, so that no tile reads past the block.
const bfloat16* block_keys(const bfloat16* k, std::size_t key0, std::size_t keys, std::size_t head_dim,
                           bfloat16* copy) {
  if (keys % kSpanKeys == 0) return k + key0 * head_dim;
  __builtin_memcpy(copy, k + key0 * head_dim, keys * head_dim * sizeof(bfloat16));
  __builtin_memset(copy + keys * head_dim, 0, (round_up(keys, kSpanKeys) - keys) * head_dim * sizeof(bfloat16));
  return copy;
}

// The values of `keys` keys from key0 paired for accumulate_tiles or accumulate_spans, zeros to
// the end of their last span (their weights are zero, and a non-finite value times zero would not
// be).
void pack_block_values(const bfloat16* v, std::size_t key0, std::size_t keys, std::size_t value_dim, Pair* values) {
  pack_value_pairs(v + key0 * value_dim, keys, value_dim, value_dim, values);
  const std::size_t packed = (keys + 1) / 2 * value_dim;
  __builtin_memset(values + packed, 0, (round_up(keys, kSpanKeys) / 2 * value_dim - packed) * sizeof(Pair));
}

// O += P V over a decode block's `keys` keys, whose values start at `v`: each span's values paired
// just before its products into `values`, one span's room (16 KiB with value_dim 128), which the
// products read while it is still in L1; a whole block's pairs (64 KiB) would pass L1 during the
// block's scores and weights and come back from L2.
void accumulate_spans(const TileTask& t, const bfloat16* v, std::size_t keys, Pair* values) {
  for (std::size_t span = 0; span * kSpanKeys < keys; ++span) {
    pack_block_values(v, span * kSpanKeys, smaller(kSpanKeys, keys - span * kSpanKeys), t.value_dim, values);
    accumulate_span(t, 0, t.weights + span * 2 * kWeightTileWords, values);
  }
}

void clear_rows(std::size_t rows, std::size_t value_dim, float* row_max, float* row_sum, float* outputs) {
  for (std::size_t r = 0; r < rows; ++r) {
    row_max[r] = kMinusInfinity;
    row_sum[r] = 0.0f;
  }
  for (std::size_t x = 0; x < rows * value_dim; ++x) outputs[x] = 0.0f;
}

struct TileScratch {
  TileLayout l;
  float* scratch;
  float* at(std::size_t offset) const { return scratch + offset; }
  Pair* pairs_at(std::size_t offset) const { return reinterpret_cast<Pair*>(scratch + offset); }

  // The task's view of this scratch.
  TileTask task(const Bf16FlashCall& call) const {
    const AttentionShape& s = call.shape;
    return {.queries = pairs_at(l.queries),
            .head_pairs = s.head_dim / 2,
            .head_dim = s.head_dim,
            .value_dim = s.value_dim,
            .query_factor = call.query_factor,
            .scores = at(l.scores),
            .score_row = l.e.score_row,
            .weights = pairs_at(l.weights),
            .group_weight_words = l.e.block_keys / 32 * kWeightTileWords,
            .values = pairs_at(l.values),
            .outputs = at(l.outputs),
            .row_max = at(l.row_max),
            .row_sum = at(l.row_sum),
            .rescale = at(l.rescale),
            .limits = at(l.limits)};
  }
};

// Ahead for the keys from `ahead` of K and V (a head's), up to `end`, at most `keys` of them.
Ahead keys_ahead(const bfloat16* k, const bfloat16* v, std::size_t ahead, std::size_t end, std::size_t keys,
                 const AttentionShape& s) {
  return {.keys = reinterpret_cast<const char*>(k + ahead * s.head_dim),
          .values = reinterpret_cast<const char*>(v + ahead * s.value_dim),
          .keys_ahead = ahead < end ? smaller(keys, end - ahead) : 0,
          .key_bytes = s.head_dim * sizeof(bfloat16),
          .value_bytes = s.value_dim * sizeof(bfloat16)};
}

// A flash task (see flash_kernel.inl's attend_tile) of `tiles` query tiles on tiles: its rows in
// row groups, each block of keys paired once and stepped through by every row group that sees a
// key of it.
void attend_tiles(const Bf16FlashCall& call, std::size_t bh, std::size_t tile, std::size_t tiles, float* scratch) {
  const AttentionShape& s = call.shape;
  if (!tiles_take(s)) {
    untiled().attend(call, bh, tile, tiles, scratch);
    return;
  }
  const TileScope scope;
  const TileScratch w{tile_layout_of(s, kFlashExtent), scratch};
  const std::size_t kv = (bh / s.heads) * s.kv_heads + (bh % s.heads) / (s.heads / s.kv_heads);
  const bfloat16* const k = call.k + kv * s.seq_k * s.head_dim;
  const bfloat16* const v = call.v + kv * s.seq_k * s.value_dim;
  const std::size_t first_query = tile * kQueryTile;
  const std::size_t rows = smaller(tiles * kQueryTile, s.seq_q - first_query);
  const std::size_t row_groups = round_up(rows, kTileRows) / kTileRows;
  const bfloat16* const q = call.q + (bh * s.seq_q + first_query) * s.head_dim;
  pack_query_pairs(q, rows, round_up(rows, kBlockColumns) / kBlockColumns, s.head_dim, w.pairs_at(w.l.queries));
  float* const outputs = w.at(w.l.outputs);
  float* const row_max = w.at(w.l.row_max);
  float* const row_sum = w.at(w.l.row_sum);
  float* const limits = w.at(w.l.limits);
  clear_rows(row_groups * kTileRows, s.value_dim, row_max, row_sum, outputs);
  // Rows past `rows` are padding (zero queries, never written out) with the last row's limit.
  for (std::size_t r = 0; r < row_groups * kTileRows; ++r)
    limits[r] = static_cast<float>(visible_keys(call.window, first_query + smaller(r, rows - 1)));
  const float* mask_rows[kTaskRows];
  if (call.mask != nullptr)
    for (std::size_t r = 0; r < row_groups * kTileRows; ++r)
      mask_rows[r] = call.mask + (first_query + smaller(r, rows - 1)) * s.seq_k;
  const TileTask t = w.task(call);
  // Visible counts grow with the row: a group's last row sees the most keys, its first the fewest.
  const auto group_end = [&](std::size_t g) { return static_cast<std::size_t>(limits[g * kTileRows + kTileRows - 1]); };
  const std::size_t keys_end = group_end(row_groups - 1);
  auto* const key_copy = reinterpret_cast<bfloat16*>(w.at(w.l.keys));
  for (std::size_t key0 = 0; key0 < keys_end; key0 += kFlashBlockKeys) {
    const std::size_t keys = smaller(kFlashBlockKeys, s.seq_k - key0);
    const bfloat16* const keys_of_block = block_keys(k, key0, keys, s.head_dim, key_copy);
    pack_block_values(v, key0, keys, s.value_dim, w.pairs_at(w.l.values));
    const Ahead next = keys_ahead(k, v, key0 + 2 * kFlashBlockKeys, keys_end, keys, s);
    // Each step for every row group that sees a key of the block before the next step: data
    // passes between tiles and vectors only through memory, and each such pass waits for the
    // stores before it, so the block takes three of them, not three per row group.
    const std::size_t first_group = [&] {
      std::size_t g = 0;
      while (group_end(g) <= key0) ++g;
      return g;
    }();
    // Row groups in pairs where they are whole pairs of a group of pack_query_pairs.
    const auto paired = [&](std::size_t g) { return g % 2 == 0 && g + 1 < row_groups; };
    for (std::size_t g = first_group; g < row_groups; g += paired(g) ? 2 : 1) {
      if (!paired(g)) {
        score_tiles(t, g * kTileRows, keys_of_block, keys);
        continue;
      }
      for (std::size_t span = 0; span * kSpanKeys < keys; ++span)
        score_span_pair(t, g * kTileRows, keys_of_block + span * kSpanKeys * s.head_dim, span * kSpanKeys);
    }
    for (std::size_t g = first_group; g < row_groups; ++g) {
      weigh_block(t, g * kTileRows, key0, keys, call.mask != nullptr ? mask_rows + g * kTileRows : nullptr,
                  g == first_group ? next : Ahead{});
      rescale_outputs(t, g * kTileRows);
    }
    for (std::size_t g = first_group; g < row_groups; g += paired(g) ? 2 : 1) {
      if (!paired(g)) {
        accumulate_tiles(t, g * kTileRows, keys);
        continue;
      }
      for (std::size_t span = 0; span * kSpanKeys < keys; ++span) accumulate_span_pair(t, g * kTileRows, span);
    }
  }

  // Each row divided by its sum; zeros for a row that saw no key (sum 0), whatever its outputs.
  bfloat16* const out = call.out + (bh * s.seq_q + first_query) * s.value_dim;
  for (std::size_t r = 0; r < rows; ++r) {
    const bool none = row_sum[r] == 0.0f;
    const Floats factor(none ? 0.0f : 1.0f / row_sum[r]);
    for (std::size_t c = 0; c < s.value_dim; c += kWidth) {
      const Floats row = none ? Floats(0.0f) : Floats::load_aligned(outputs + r * s.value_dim + c) * factor;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + r * s.value_dim + c),
                          _mm512_cvtepi32_epi16(bfloat16_lanes(row)));
    }
  }
}

// A Flash-Decoding task (see decode_kernel.inl) on tiles: its rows, one row group, over its keys;
// the partial result is the unnormalised outputs, as the other kernels leave it, relative to the
// rows' bases, which decode_sdpa combines as the other kernels' maxima.
void decode_tiles(const Bf16FlashCall& call, const DecodeTask& task, float* scratch) {
  const AttentionShape& s = call.shape;
  // Fewer rows than a tile (one query of a group of four heads) would pay a whole tile's products
  // for each: the widened kernel's few-rows task streams the keys faster.
  if (!tiles_take(s) || task.rows < kTileRows) {
    untiled().decode(call, task, scratch);
    return;
  }
  const TileScope scope;
  const TileScratch w{tile_layout_of(s, kDecodeExtent), scratch};
  const TaskInputs<bfloat16> inputs = task_inputs(call, task);
  pack_query_pairs(inputs.q, task.rows, 1, s.head_dim, w.pairs_at(w.l.queries));
  float* const outputs = w.at(w.l.outputs);
  float* const row_max = w.at(w.l.row_max);
  float* const row_sum = w.at(w.l.row_sum);
  float* const limits = w.at(w.l.limits);
  clear_rows(kTileRows, s.value_dim, row_max, row_sum, outputs);
  // Row r's query: the rows' queries repeat from head to head.
  const float* mask_rows[kTileRows];
  for (std::size_t r = 0; r < kTileRows; ++r) {
    const std::size_t i = (task.first_row + r) % s.seq_q;
    limits[r] = static_cast<float>(visible_keys(call.window, i));
    mask_rows[r] = call.mask != nullptr ? call.mask + i * s.seq_k : nullptr;
  }
  const TileTask t = w.task(call);
  auto* const key_copy = reinterpret_cast<bfloat16*>(w.at(w.l.keys));
  for (std::size_t key0 = task.key_begin; key0 < task.key_end; key0 += kDecodeBlockKeys) {
    const std::size_t keys = smaller(kDecodeBlockKeys, task.key_end - key0);
    const Ahead next = keys_ahead(inputs.k, inputs.v, key0 + kDecodeBlockKeys, task.key_end, keys, s);
    score_tiles(t, 0, block_keys(inputs.k, key0, keys, s.head_dim, key_copy), keys);
    weigh_block(t, 0, key0, keys, call.mask != nullptr ? mask_rows : nullptr, next);
    rescale_outputs(t, 0);
    accumulate_spans(t, inputs.v + key0 * s.value_dim, keys, w.pairs_at(w.l.values));
  }
  for (std::size_t r = 0; r < task.rows; ++r) {
    task.row_max[r] = row_max[r];
    task.row_sum[r] = row_sum[r];
    for (std::size_t c = 0; c < s.value_dim; ++c) task.outputs[r * task.value_stride + c] = outputs[r * s.value_dim + c];
  }
}

}  // namespace

const Bf16FlashKernels kBf16FlashKernels = {kQueryTile,
                                            kMaxTaskTiles,
                                            tile_thread_floats,
                                            attend_tiles,
                                            kTileRows,
                                            tile_decode_thread_floats,
                                            decode_tiles,
                                            products_per_round,
                                            run_product_rounds};

}  // namespace attention::simd::ATTENTION_SIMD_NAMESPACE
