// The classic three-kernel port: scores = Q Kᵀ, then one row-wise scale + mask + softmax pass over
// the scores in place, then O = P V. The [batch*heads][seq_q][seq_k] scores live in global memory.

#define GEMM_TILE 16
#define SOFTMAX_WORK_GROUP 64

// scores[bh][i][j] = Q[bh][i] . K[bh / group][j]. One work-group per GEMM_TILE x GEMM_TILE block of
// scores: dimension 0 runs over keys, 1 over queries, 2 over batch*heads.
__kernel __attribute__((reqd_work_group_size(GEMM_TILE, GEMM_TILE, 1)))
void query_key_scores(__global const float* q, __global const float* k, __global float* scores,
                      int group, int seq_q, int seq_k, int head_dim) {
  const int local_j = get_local_id(0);
  const int local_i = get_local_id(1);
  const int tile_j = get_group_id(0) * GEMM_TILE;
  const int tile_i = get_group_id(1) * GEMM_TILE;
  const int bh = get_global_id(2);
  __global const float* q_head = q + (ulong)bh * seq_q * head_dim;
  __global const float* k_head = k + (ulong)(bh / group) * seq_k * head_dim;
  // q_tile[i][d] holds query row tile_i + i; k_tile[d][j] holds key row tile_j + j, transposed so
  // that the items of a row (consecutive j) read consecutive addresses in the product loop. The
  // padding column spreads the transposed stores over different local-memory banks.
  __local float q_tile[GEMM_TILE][GEMM_TILE + 1];
  __local float k_tile[GEMM_TILE][GEMM_TILE + 1];
  float sum = 0.0f;
  for (int d0 = 0; d0 < head_dim; d0 += GEMM_TILE) {
    // Item (i, j) loads element d0 + j of query row tile_i + i and of key row tile_j + i, so that
    // neighbouring items read neighbouring global addresses; out-of-range elements load as zeros.
    const int d = d0 + local_j;
    const int query = tile_i + local_i;
    const int key = tile_j + local_i;
    q_tile[local_i][local_j] = query < seq_q && d < head_dim ? q_head[(ulong)query * head_dim + d] : 0.0f;
    k_tile[local_j][local_i] = key < seq_k && d < head_dim ? k_head[(ulong)key * head_dim + d] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int dd = 0; dd < GEMM_TILE; ++dd) sum = fma(q_tile[local_i][dd], k_tile[dd][local_j], sum);
    // No item reloads the tiles before every item is done reading them.
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const int i = tile_i + local_i;
  const int j = tile_j + local_j;
  if (i < seq_q && j < seq_k) scores[((ulong)bh * seq_q + i) * seq_k + j] = sum;
}

// Combines `value` of every item of the work-group with fmax (is_max) or +; every item gets the
// result. Starts and ends with a barrier, so `scratch` may be reused by the next call at once.
inline float reduce_work_group(__local float* scratch, float value, bool is_max) {
  const int item = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  scratch[item] = value;
  for (int stride = SOFTMAX_WORK_GROUP / 2; stride > 0; stride /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (item < stride) {
      scratch[item] = is_max ? fmax(scratch[item], scratch[item + stride]) : scratch[item] + scratch[item + stride];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const float result = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return result;
}

// Turns one row of raw scores into probabilities, in place: scale, add the mask, drop the keys the
// causal limit hides, softmax. A row with no visible finite score becomes zeros. One work-group
// of SOFTMAX_WORK_GROUP items per row; dimension 1 runs over the batch*heads*seq_q rows.
__kernel __attribute__((reqd_work_group_size(SOFTMAX_WORK_GROUP, 1, 1)))
void masked_softmax_rows(__global float* scores, __global const float* mask, float scale, int seq_q,
                         int seq_k, int key_offset) {
  const int item = get_local_id(0);
  const ulong row = get_global_id(1);
  const int query = (int)(row % seq_q);
  const int key_end = visible_key_end(query, key_offset, seq_k);
  __global float* row_scores = scores + row * seq_k;
  __global const float* row_mask = mask ? mask + (ulong)query * seq_k : 0;
  __local float scratch[SOFTMAX_WORK_GROUP];

  float row_max = -INFINITY;
  for (int j = item; j < key_end; j += SOFTMAX_WORK_GROUP) {
    const float score = scale * row_scores[j] + (row_mask ? row_mask[j] : 0.0f);
    row_scores[j] = score;
    row_max = fmax(row_max, score);
  }
  const float shift = softmax_shift(reduce_work_group(scratch, row_max, true));

  // Each item revisits exactly the elements it wrote above, so no barrier is needed between passes.
  float row_sum = 0.0f;
  for (int j = item; j < key_end; j += SOFTMAX_WORK_GROUP) {
    const float weight = exp(row_scores[j] - shift);
    row_scores[j] = weight;
    row_sum += weight;
  }
  row_sum = reduce_work_group(scratch, row_sum, false);

  const float inverse_sum = row_sum > 0.0f ? 1.0f / row_sum : 0.0f;
  for (int j = item; j < seq_k; j += SOFTMAX_WORK_GROUP) {
    row_scores[j] = j < key_end ? row_scores[j] * inverse_sum : 0.0f;
  }
}

// out[bh][i][c] = sum over j of probabilities[bh][i][j] * V[bh / group][j][c]. One work-group per
// GEMM_TILE x GEMM_TILE block of the output: dimension 0 runs over value columns, 1 over queries,
// 2 over batch*heads.
__kernel __attribute__((reqd_work_group_size(GEMM_TILE, GEMM_TILE, 1)))
void weighted_values(__global const float* probabilities, __global const float* v, __global float* out,
                     int group, int seq_q, int seq_k, int value_dim) {
  const int local_c = get_local_id(0);
  const int local_i = get_local_id(1);
  const int tile_c = get_group_id(0) * GEMM_TILE;
  const int tile_i = get_group_id(1) * GEMM_TILE;
  const int bh = get_global_id(2);
  __global const float* p_head = probabilities + (ulong)bh * seq_q * seq_k;
  __global const float* v_head = v + (ulong)(bh / group) * seq_k * value_dim;
  __local float p_tile[GEMM_TILE][GEMM_TILE + 1];
  __local float v_tile[GEMM_TILE][GEMM_TILE + 1];
  float sum = 0.0f;
  for (int j0 = 0; j0 < seq_k; j0 += GEMM_TILE) {
    // Item (i, c) loads probability j0 + c of query tile_i + i and column tile_c + c of value row
    // j0 + i; out-of-range elements load as zeros.
    const int query = tile_i + local_i;
    const int column = tile_c + local_c;
    const int p_key = j0 + local_c;
    const int v_key = j0 + local_i;
    p_tile[local_i][local_c] = query < seq_q && p_key < seq_k ? p_head[(ulong)query * seq_k + p_key] : 0.0f;
    v_tile[local_i][local_c] = v_key < seq_k && column < value_dim ? v_head[(ulong)v_key * value_dim + column] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int jj = 0; jj < GEMM_TILE; ++jj) sum = fma(p_tile[local_i][jj], v_tile[jj][local_c], sum);
    // No item reloads the tiles before every item is done reading them.
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const int i = tile_i + local_i;
  const int c = tile_c + local_c;
  if (i < seq_q && c < value_dim) out[((ulong)bh * seq_q + i) * value_dim + c] = sum;
}
