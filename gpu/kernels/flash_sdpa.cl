// FlashAttention-style forward pass shaped for GPUs: one work-group per (batch*head, tile of
// QUERY_TILE queries), one query per item. Key and value tiles of KEY_TILE rows are staged in local
// memory by the whole work-group; each item keeps its scaled query and its output accumulator in
// private memory and folds every tile into them with an online softmax, so the seq_q x seq_k scores
// never exist. Rows are handled as vectors of VECTOR_WIDTH floats (128-bit loads on GPUs, one AVX
// register per operation on a CPU device). The host defines HEAD_DIM, VALUE_DIM, QUERY_TILE,
// KEY_TILE (a multiple of VECTOR_WIDTH) and VECTOR_WIDTH (4 or 8).

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#define floatv CONCAT(float, VECTOR_WIDTH)
#define vloadv CONCAT(vload, VECTOR_WIDTH)
#define vstorev CONCAT(vstore, VECTOR_WIDTH)
// Rows rounded up to whole vectors; the padding lanes hold zeros (in queries, key and value tiles),
// so they add nothing to dot products and accumulate nothing.
#define HEAD_VECTORS ((HEAD_DIM + VECTOR_WIDTH - 1) / VECTOR_WIDTH)
#define VALUE_VECTORS ((VALUE_DIM + VECTOR_WIDTH - 1) / VECTOR_WIDTH)

// Elements [first, first + VECTOR_WIDTH) of a row of `width` floats, zeros past its end.
inline floatv load_padded_vector(__global const float* row, int first, int width) {
  if (first + VECTOR_WIDTH <= width) return vloadv(0, row + first);
  float lanes[VECTOR_WIDTH];
  for (int lane = 0; lane < VECTOR_WIDTH; ++lane) lanes[lane] = first + lane < width ? row[first + lane] : 0.0f;
  return vloadv(0, lanes);
}

inline float sum_of_lanes(floatv x) {
#if VECTOR_WIDTH == 8
  const float4 quarter_sums = x.lo + x.hi;
#else
  const float4 quarter_sums = x;
#endif
  const float2 pair_sums = quarter_sums.lo + quarter_sums.hi;
  return pair_sums.x + pair_sums.y;
}

__kernel __attribute__((reqd_work_group_size(QUERY_TILE, 1, 1)))
void flash_attention(__global const float* q, __global const float* k, __global const float* v,
                     __global const float* mask, __global float* out, int group, int seq_q, int seq_k,
                     int key_offset, float scale) {
  const int item = get_local_id(0);
  const int first_query = get_group_id(0) * QUERY_TILE;
  const int bh = get_group_id(1);
  const int query = first_query + item;
  // Items past seq_q still load tiles and reach every barrier; they see no key and write nothing.
  const bool active = query < seq_q;
  const int key_end = active ? visible_key_end(query, key_offset, seq_k) : 0;
  // The tile's last query sees the most keys: the work-group stops after its last visible key, so
  // key tiles entirely above the causal diagonal are never loaded.
  const int tile_key_end = visible_key_end(min(first_query + QUERY_TILE, seq_q) - 1, key_offset, seq_k);
  __global const float* k_head = k + (ulong)(bh / group) * seq_k * HEAD_DIM;
  __global const float* v_head = v + (ulong)(bh / group) * seq_k * VALUE_DIM;
  __global const float* row_mask = mask && active ? mask + (ulong)query * seq_k : 0;
  // Row-major [KEY_TILE][HEAD_VECTORS] and [KEY_TILE][VALUE_VECTORS].
  __local floatv k_tile[KEY_TILE * HEAD_VECTORS];
  __local floatv v_tile[KEY_TILE * VALUE_VECTORS];

  floatv scaled_query[HEAD_VECTORS];
  floatv accumulator[VALUE_VECTORS];
  __global const float* q_row = q + ((ulong)bh * seq_q + min(query, seq_q - 1)) * HEAD_DIM;
  for (int c = 0; c < HEAD_VECTORS; ++c) {
    scaled_query[c] = scale * load_padded_vector(q_row, c * VECTOR_WIDTH, HEAD_DIM);
  }
  for (int c = 0; c < VALUE_VECTORS; ++c) accumulator[c] = 0.0f;
  float running_max = -INFINITY;
  float running_sum = 0.0f;

  for (int j0 = 0; j0 < tile_key_end; j0 += KEY_TILE) {
    // No item overwrites the tiles before every item is done with the previous ones.
    barrier(CLK_LOCAL_MEM_FENCE);
    // Rows past seq_k load as zeros: their weights are 0, and 0 * garbage could be NaN.
    const int tile_keys = min(KEY_TILE, seq_k - j0);
    for (int e = item; e < KEY_TILE * HEAD_VECTORS; e += QUERY_TILE) {
      const int row = e / HEAD_VECTORS;
      k_tile[e] = row < tile_keys ? load_padded_vector(k_head + (ulong)(j0 + row) * HEAD_DIM,
                                                       e % HEAD_VECTORS * VECTOR_WIDTH, HEAD_DIM)
                                  : 0.0f;
    }
    for (int e = item; e < KEY_TILE * VALUE_VECTORS; e += QUERY_TILE) {
      const int row = e / VALUE_VECTORS;
      v_tile[e] = row < tile_keys ? load_padded_vector(v_head + (ulong)(j0 + row) * VALUE_DIM,
                                                       e % VALUE_VECTORS * VECTOR_WIDTH, VALUE_DIM)
                                  : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // Scores of every key of the tile (-inf for keys this query may not see), then, in place, their
    // weights: exponentials a vector at a time.
    float scores[KEY_TILE];
    float tile_max = -INFINITY;
    for (int jj = 0; jj < KEY_TILE; ++jj) {
      floatv partial_dots = 0.0f;
#pragma unroll
      for (int c = 0; c < HEAD_VECTORS; ++c) {
        partial_dots = fma(scaled_query[c], k_tile[jj * HEAD_VECTORS + c], partial_dots);
      }
      const bool visible = j0 + jj < key_end;
      scores[jj] = visible ? sum_of_lanes(partial_dots) + (row_mask ? row_mask[j0 + jj] : 0.0f) : -INFINITY;
      tile_max = fmax(tile_max, scores[jj]);
    }
    const float new_max = fmax(running_max, tile_max);
    const float shift = softmax_shift(new_max);
    const float correction = exp(running_max - shift);
    running_sum *= correction;
#pragma unroll
    for (int c = 0; c < VALUE_VECTORS; ++c) accumulator[c] *= correction;
    for (int t = 0; t < KEY_TILE / VECTOR_WIDTH; ++t) {
      const floatv weights = exp(vloadv(t, scores) - shift);
      running_sum += sum_of_lanes(weights);
      vstorev(weights, t, scores);
    }
    for (int jj = 0; jj < KEY_TILE; ++jj) {
#pragma unroll
      for (int c = 0; c < VALUE_VECTORS; ++c) {
        accumulator[c] = fma(scores[jj], v_tile[jj * VALUE_VECTORS + c], accumulator[c]);
      }
    }
    running_max = new_max;
  }

  if (active) {
    const float inverse_sum = running_sum > 0.0f ? 1.0f / running_sum : 0.0f;
    __global float* out_row = out + ((ulong)bh * seq_q + query) * VALUE_DIM;
    const float* accumulated = (const float*)accumulator;
    for (int c = 0; c < VALUE_DIM; ++c) out_row[c] = accumulated[c] * inverse_sum;
  }
}
