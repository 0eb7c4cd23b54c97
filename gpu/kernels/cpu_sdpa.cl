// Forward pass shaped for OpenCL on CPUs (PoCL): no local memory and no barriers; each work-item
// owns QUERY_ROWS consecutive queries of one head and walks the keys KEY_LANES at a time, one
// float16 lane per key (two AVX registers), with an online softmax. Scores come from a copy of K
// packed key-block by key-block, so that 16 keys of one dimension are one contiguous load and
// every FMA is full width; the weighted sum of values runs along the value dimension, 16 columns
// per vector. QUERY_ROWS rows x two registers keep eight independent FMA chains in flight. Loops
// over rows and lanes are unrolled explicitly: PoCL does not unroll them by itself, and without
// that the per-row vectors live in memory. The host defines HEAD_DIM, VALUE_DIM and QUERY_ROWS.

#define KEY_LANES 16
// Value columns rounded up to whole float16 chunks; the accumulator's padding columns stay unused.
#define VALUE_CHUNKS ((VALUE_DIM + KEY_LANES - 1) / KEY_LANES)

// packed_keys[bkv][j / 16][d][j % 16] = K[bkv][j][d] for j < seq_k, 0 for seq_k <= j < padded_seq_k
// (a multiple of KEY_LANES): the HEAD_DIM x 16 block of one key block is contiguous.
// Dimension 0 runs over padded keys, 1 over head dimensions, 2 over batch*kv_heads.
__kernel void pack_keys(__global const float* k, __global float* packed_keys, int seq_k, int padded_seq_k) {
  const int key = get_global_id(0);
  const int d = get_global_id(1);
  const ulong bkv = get_global_id(2);
  const ulong block = bkv * (padded_seq_k / KEY_LANES) + key / KEY_LANES;
  packed_keys[(block * HEAD_DIM + d) * KEY_LANES + key % KEY_LANES] =
      key < seq_k ? k[(bkv * seq_k + key) * HEAD_DIM + d] : 0.0f;
}

// 16 mask values of `row_mask` from `key`; past seq_k the lanes repeat the last value (the caller
// hides those keys anyway) instead of reading beyond the row.
inline float16 load_mask_lanes(__global const float* row_mask, int key, int seq_k) {
  if (key + KEY_LANES <= seq_k) return vload16(0, row_mask + key);
  float lanes[KEY_LANES];
  for (int lane = 0; lane < KEY_LANES; ++lane) lanes[lane] = row_mask[min(key + lane, seq_k - 1)];
  return vload16(0, lanes);
}

// Columns [c, c + 16) of a value row, zeros past VALUE_DIM.
inline float16 load_value_chunk(__global const float* value_row, int c) {
  if (VALUE_DIM % KEY_LANES == 0 || c + KEY_LANES <= VALUE_DIM) return vload16(0, value_row + c);
  float lanes[KEY_LANES];
  for (int lane = 0; lane < KEY_LANES; ++lane) lanes[lane] = c + lane < VALUE_DIM ? value_row[c + lane] : 0.0f;
  return vload16(0, lanes);
}

inline float max_of_lanes(float16 x) {
  const float8 half_max = fmax(x.lo, x.hi);
  const float4 quarter_max = fmax(half_max.lo, half_max.hi);
  const float2 pair_max = fmax(quarter_max.lo, quarter_max.hi);
  return fmax(pair_max.x, pair_max.y);
}

inline float sum_of_lanes(float16 x) {
  const float8 half_sum = x.lo + x.hi;
  const float4 quarter_sum = half_sum.lo + half_sum.hi;
  const float2 pair_sum = quarter_sum.lo + quarter_sum.hi;
  return pair_sum.x + pair_sum.y;
}

// Dimension 0 runs over blocks of QUERY_ROWS queries, 1 over batch*heads. The last block repeats
// query seq_q - 1 in its missing rows (keeping every loop bound a compile-time constant) and writes
// only the rows that exist.
__kernel void row_block_attention(__global const float* q, __global const float* packed_keys,
                                  __global const float* v, __global const float* mask, __global float* out,
                                  int group, int seq_q, int seq_k, int padded_seq_k, int key_offset,
                                  float scale) {
  const int first_query = get_global_id(0) * QUERY_ROWS;
  const ulong bh = get_global_id(1);
  if (first_query >= seq_q) return;
  const ulong bkv = bh / group;
  __global const float* key_blocks = packed_keys + bkv * padded_seq_k * HEAD_DIM;
  __global const float* v_head = v + bkv * seq_k * VALUE_DIM;

  int queries[QUERY_ROWS];
  int key_ends[QUERY_ROWS];
  float scaled_queries[QUERY_ROWS][HEAD_DIM];
  float accumulators[QUERY_ROWS][VALUE_CHUNKS * KEY_LANES];
  float running_max[QUERY_ROWS];
  float running_sum[QUERY_ROWS];
#pragma unroll
  for (int r = 0; r < QUERY_ROWS; ++r) {
    queries[r] = min(first_query + r, seq_q - 1);
    key_ends[r] = visible_key_end(queries[r], key_offset, seq_k);
    __global const float* q_row = q + (bh * seq_q + queries[r]) * HEAD_DIM;
    for (int d = 0; d < HEAD_DIM; ++d) scaled_queries[r][d] = scale * q_row[d];
    for (int c = 0; c < VALUE_CHUNKS * KEY_LANES; ++c) accumulators[r][c] = 0.0f;
    running_max[r] = -INFINITY;
    running_sum[r] = 0.0f;
  }
  // Queries increase with r, so the last row sees the most keys: blocks past it are skipped.
  const int block_key_end = key_ends[QUERY_ROWS - 1];
  const int16 lane_offsets = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);

  for (int j0 = 0; j0 < block_key_end; j0 += KEY_LANES) {
    __global const float* key_block = key_blocks + (ulong)j0 * HEAD_DIM;
    float16 scores[QUERY_ROWS];
#pragma unroll
    for (int r = 0; r < QUERY_ROWS; ++r) scores[r] = (float16)(0.0f);
    for (int d = 0; d < HEAD_DIM; ++d) {
      const float16 keys = vload16(d, key_block);
#pragma unroll
      for (int r = 0; r < QUERY_ROWS; ++r) scores[r] = fma((float16)(scaled_queries[r][d]), keys, scores[r]);
    }

    float weights[QUERY_ROWS][KEY_LANES];
    float corrections[QUERY_ROWS];
    const int16 keys_of_lanes = (int16)(j0) + lane_offsets;
#pragma unroll
    for (int r = 0; r < QUERY_ROWS; ++r) {
      if (mask) scores[r] += load_mask_lanes(mask + (ulong)queries[r] * seq_k, j0, seq_k);
      scores[r] = select(scores[r], (float16)(-INFINITY), keys_of_lanes >= (int16)(key_ends[r]));
      const float new_max = fmax(running_max[r], max_of_lanes(scores[r]));
      const float shift = softmax_shift(new_max);
      const float16 row_weights = exp(scores[r] - (float16)(shift));
      corrections[r] = exp(running_max[r] - shift);
      running_sum[r] = running_sum[r] * corrections[r] + sum_of_lanes(row_weights);
      running_max[r] = new_max;
      vstore16(row_weights, 0, weights[r]);
    }

    // Keys past seq_k have weight 0; their value rows are clamped to the last one, which exists.
    __global const float* value_rows[KEY_LANES];
#pragma unroll
    for (int lane = 0; lane < KEY_LANES; ++lane) {
      value_rows[lane] = v_head + (ulong)min(j0 + lane, seq_k - 1) * VALUE_DIM;
    }
    for (int chunk = 0; chunk < VALUE_CHUNKS; ++chunk) {
      const int c = chunk * KEY_LANES;
      float16 sums[QUERY_ROWS];
#pragma unroll
      for (int r = 0; r < QUERY_ROWS; ++r) sums[r] = vload16(0, accumulators[r] + c) * corrections[r];
#pragma unroll
      for (int lane = 0; lane < KEY_LANES; ++lane) {
        const float16 values = load_value_chunk(value_rows[lane], c);
#pragma unroll
        for (int r = 0; r < QUERY_ROWS; ++r) sums[r] = fma((float16)(weights[r][lane]), values, sums[r]);
      }
#pragma unroll
      for (int r = 0; r < QUERY_ROWS; ++r) vstore16(sums[r], 0, accumulators[r] + c);
    }
  }

  for (int r = 0; r < QUERY_ROWS; ++r) {
    if (first_query + r >= seq_q) break;
    const float inverse_sum = running_sum[r] > 0.0f ? 1.0f / running_sum[r] : 0.0f;
    __global float* out_row = out + (bh * seq_q + queries[r]) * VALUE_DIM;
    for (int c = 0; c < VALUE_DIM; ++c) out_row[c] = accumulators[r][c] * inverse_sum;
  }
}
