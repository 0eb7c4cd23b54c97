// FlashAttention-2-style forward pass shaped for GPUs: register blocking, as fast SGEMMs do.
//
// One work-group per (batch*head, tile of QUERY_TILE queries), a grid of ITEM_ROWS x ITEM_COLUMNS
// work-items. For each tile of KEY_TILE keys, item (ty, tx) computes a ROWS_PER_ITEM x
// COLUMNS_PER_ITEM block of the score tile in registers, then the same rows x
// VALUE_COLUMNS_PER_ITEM block of the output: every value read from local memory feeds a whole
// row or column of its block, so a query row and a key row are each read once per item, not once
// per product. The host defines HEAD_DIM, VALUE_DIM, QUERY_TILE, KEY_TILE, ROWS_PER_ITEM,
// COLUMNS_PER_ITEM, STAGE_QUERIES, STAGE_VALUES and PREFETCH (see gpu/include/gpu/tiled_sdpa_parameters.hpp for what it
// accepts).
//
// Which rows and columns an item owns: in groups of GROUP (4) consecutive ones, the groups of the
// items interleaved, so that (a) an item's group is 4 consecutive, 16-byte aligned floats, read
// with one 128-bit local load, and (b) the items of a row of the grid read consecutive groups (no
// bank conflicts). With GROUP = 4 and ITEM_COLUMNS = 8, item tx owns key columns 4tx..4tx+3,
// 32+4tx..32+4tx+3, ... Tiles are multiples of 4, so every row of every local array starts
// 16-byte aligned.
//
// With PREFETCH, the next key and value tiles are fetched from global memory into registers while
// the current ones are computed on, and stored to local memory at the top of the next iteration:
// the loads' latency hides behind the arithmetic even with one work-group per compute unit, at the
// cost of the registers that hold them.
//
// Local memory, all float:
//   query_tile [HEAD_DIM][QUERY_TILE]     the scaled queries, transposed (a column per query), if
//              STAGE_QUERIES; else items read their queries from global memory (through the
//              cache) and scale the scores instead, which leaves local memory to larger key tiles;
//   key_tile   [HEAD_DIM][KEY_TILE]       the key tile, transposed; once the scores are computed
//              the same memory holds the weights, [KEY_TILE][QUERY_TILE + 4] (the 4 spread the
//              transposed stores over more banks while keeping rows 16-byte aligned);
//   value_tile [KEY_TILE][VALUE_STRIDE]   the value tile, zero past VALUE_DIM, if STAGE_VALUES;
//              else items read their values' 128-bit groups from global memory (through the
//              cache: the work-group's items read the same rows), which leaves local memory to
//              larger tiles or more work-groups (VALUE_DIM is then a multiple of 4);
//   row_partials [ITEM_COLUMNS][QUERY_TILE]  each item's part of a row maximum, then of a row sum.
//
// Softmax: the online softmax of FlashAttention-2 in base 2. Queries are scaled by scale * log2(e)
// (and the mask by log2(e)) so that weights are exp2(score - row maximum). Every item of a grid
// row holds the same running maximum of each of its rows (reduced through row_partials each tile),
// but only its own columns' part of the running sum, reduced once at the end.

#define ITEM_ROWS (QUERY_TILE / ROWS_PER_ITEM)
#define ITEM_COLUMNS (KEY_TILE / COLUMNS_PER_ITEM)
#define ITEMS (ITEM_ROWS * ITEM_COLUMNS)
#define GROUP 4
#define ROW_GROUP (ROWS_PER_ITEM < GROUP ? ROWS_PER_ITEM : GROUP)
#define COLUMN_GROUP (COLUMNS_PER_ITEM < GROUP ? COLUMNS_PER_ITEM : GROUP)
// Output columns per item: VALUE_DIM over the grid's columns, in whole groups.
#define VALUE_COLUMNS_PER_ITEM (((VALUE_DIM + ITEM_COLUMNS * GROUP - 1) / (ITEM_COLUMNS * GROUP)) * GROUP)
#define VALUE_STRIDE (VALUE_COLUMNS_PER_ITEM * ITEM_COLUMNS)
#define WEIGHT_STRIDE (QUERY_TILE + 4)
#define KEY_TILE_FLOATS \
  (HEAD_DIM * KEY_TILE > KEY_TILE * WEIGHT_STRIDE ? HEAD_DIM * KEY_TILE : KEY_TILE * WEIGHT_STRIDE)
#define LOG2_E 1.4426950408889634f
// Elements of the key and value tiles each item fetches.
#define KEY_LOADS ((KEY_TILE * HEAD_DIM + ITEMS - 1) / ITEMS)
#if STAGE_VALUES
#define VALUE_LOADS ((KEY_TILE * VALUE_STRIDE + ITEMS - 1) / ITEMS)
#else
#define VALUE_LOADS 1
#endif

// The m-th row (of the query tile) of item row ty; the n-th column of the key tile of item column
// tx; the v-th output column of item column tx.
#define ROW_OF(ty, m) (((m) / ROW_GROUP) * (ITEM_ROWS * ROW_GROUP) + (ty) * ROW_GROUP + (m) % ROW_GROUP)
#define COLUMN_OF(tx, n) \
  (((n) / COLUMN_GROUP) * (ITEM_COLUMNS * COLUMN_GROUP) + (tx) * COLUMN_GROUP + (n) % COLUMN_GROUP)
#define VALUE_COLUMN_OF(tx, v) (((v) / GROUP) * (ITEM_COLUMNS * GROUP) + (tx) * GROUP + (v) % GROUP)

// dst[0, count) = base[offset, offset + count), count a compile-time 1, 2, 3 or 4; when 4, offset
// is a multiple of 4 and base 16-byte aligned: one 128-bit load.
#define LOAD_GROUP(dst, base, offset, count)                                 \
  do {                                                                       \
    if ((count) == 4) {                                                      \
      const float4 group_ = ((__local const float4*)(base))[(offset) / 4];   \
      (dst)[0] = group_.x;                                                   \
      (dst)[1] = group_.y;                                                   \
      (dst)[2] = group_.z;                                                   \
      (dst)[3] = group_.w;                                                   \
    } else {                                                                 \
      for (int lane_ = 0; lane_ < (count); ++lane_) (dst)[lane_] = (base)[(offset) + lane_]; \
    }                                                                        \
  } while (0)

// Keys [j0, j0 + KEY_TILE) and their values into registers, zeros past seq_k (their weights are 0,
// and 0 * garbage could be NaN) and past VALUE_DIM. Element e of a tile goes to item e % ITEMS;
// consecutive items take consecutive keys of one dimension (the transposed stores then hit
// consecutive banks) and consecutive values of one key (coalesced reads).
inline void fetch_tiles(__global const float* k_head, __global const float* v_head, int j0, int seq_k, int item,
                        float* keys, float* values) {
  const int tile_keys = min(KEY_TILE, seq_k - j0);
#pragma unroll
  for (int i = 0; i < KEY_LOADS; ++i) {
    const int e = item + i * ITEMS;
    const int key = e % KEY_TILE;
    const int d = e / KEY_TILE;
    keys[i] = d < HEAD_DIM && key < tile_keys ? k_head[(ulong)(j0 + key) * HEAD_DIM + d] : 0.0f;
  }
#if STAGE_VALUES
#pragma unroll
  for (int i = 0; i < VALUE_LOADS; ++i) {
    const int e = item + i * ITEMS;
    const int key = e / VALUE_STRIDE;
    const int c = e % VALUE_STRIDE;
    values[i] = key < tile_keys && c < VALUE_DIM ? v_head[(ulong)(j0 + key) * VALUE_DIM + c] : 0.0f;
  }
#endif
}

// The fetched tiles into local memory: keys transposed, [HEAD_DIM][KEY_TILE].
inline void store_tiles(const float* keys, const float* values, int item, __local float* key_tile,
                        __local float* value_tile) {
#pragma unroll
  for (int i = 0; i < KEY_LOADS; ++i) {
    const int e = item + i * ITEMS;
    if (e < KEY_TILE * HEAD_DIM) key_tile[(e / KEY_TILE) * KEY_TILE + e % KEY_TILE] = keys[i];
  }
#if STAGE_VALUES
#pragma unroll
  for (int i = 0; i < VALUE_LOADS; ++i) {
    const int e = item + i * ITEMS;
    if (e < KEY_TILE * VALUE_STRIDE) value_tile[e] = values[i];
  }
#endif
}

__kernel __attribute__((reqd_work_group_size(ITEMS, 1, 1)))
void tiled_attention(__global const float* restrict q, __global const float* restrict k,
                     __global const float* restrict v, __global const float* restrict mask,
                     __global float* restrict out, int group, int seq_q, int seq_k, int key_offset, float scale) {
  // Declared as float4 for the alignment of 128-bit loads; used as float.
#if STAGE_QUERIES
  __local float4 query_vectors[HEAD_DIM * QUERY_TILE / 4];
  __local float* query_tile = (__local float*)query_vectors;
#endif
  __local float4 key_vectors[KEY_TILE_FLOATS / 4];
#if STAGE_VALUES
  __local float4 value_vectors[KEY_TILE * VALUE_STRIDE / 4];
  __local float* value_tile = (__local float*)value_vectors;
#else
  __local float* value_tile = 0;
#endif
  __local float4 partial_vectors[ITEM_COLUMNS * QUERY_TILE / 4];
  __local float* key_tile = (__local float*)key_vectors;
  __local float* row_partials = (__local float*)partial_vectors;
  __local float* weight_tile = key_tile;

  const int item = get_local_id(0);
  const int ty = item / ITEM_COLUMNS;
  const int tx = item % ITEM_COLUMNS;
  const int first_query = get_group_id(0) * QUERY_TILE;
  const int bh = get_group_id(1);
  const int tile_queries = min(QUERY_TILE, seq_q - first_query);
  // The tile's last query sees the most keys: tiles entirely above the causal diagonal are skipped.
  const int tile_key_end = visible_key_end(first_query + tile_queries - 1, key_offset, seq_k);
  __global const float* q_head = q + ((ulong)bh * seq_q + first_query) * HEAD_DIM;
  __global const float* k_head = k + (ulong)(bh / group) * seq_k * HEAD_DIM;
  __global const float* v_head = v + (ulong)(bh / group) * seq_k * VALUE_DIM;

  const float query_scale = scale * LOG2_E;
#if STAGE_QUERIES
  // Consecutive items take consecutive queries, so the transposed stores hit consecutive banks.
  for (int e = item; e < QUERY_TILE * HEAD_DIM; e += ITEMS) {
    const int row = e % QUERY_TILE;
    const int d = e / QUERY_TILE;
    query_tile[d * QUERY_TILE + row] = row < tile_queries ? query_scale * q_head[(ulong)row * HEAD_DIM + d] : 0.0f;
  }
#define SCORE_SCALE 1.0f
#else
  // Rows past seq_q read the tile's last query: real memory, and their scores are never used.
  __global const float* query_row[ROWS_PER_ITEM];
#pragma unroll
  for (int m = 0; m < ROWS_PER_ITEM; ++m) {
    query_row[m] = q_head + (ulong)min(ROW_OF(ty, m), tile_queries - 1) * HEAD_DIM;
  }
#define SCORE_SCALE query_scale
#endif

  int key_end[ROWS_PER_ITEM];
  __global const float* mask_row[ROWS_PER_ITEM];
  float running_max[ROWS_PER_ITEM];
  float running_sum[ROWS_PER_ITEM];
  float acc[ROWS_PER_ITEM][VALUE_COLUMNS_PER_ITEM];
#pragma unroll
  for (int m = 0; m < ROWS_PER_ITEM; ++m) {
    const int query = first_query + ROW_OF(ty, m);
    // Rows past seq_q see no key: their weights are 0 and nothing of them is written.
    key_end[m] = query < seq_q ? visible_key_end(query, key_offset, seq_k) : 0;
    mask_row[m] = mask ? mask + (ulong)min(query, seq_q - 1) * seq_k : 0;
    running_max[m] = -INFINITY;
    running_sum[m] = 0.0f;
#pragma unroll
    for (int c = 0; c < VALUE_COLUMNS_PER_ITEM; ++c) acc[m][c] = 0.0f;
  }

  float next_keys[KEY_LOADS];
  float next_values[VALUE_LOADS];
#if PREFETCH
  if (tile_key_end > 0) fetch_tiles(k_head, v_head, 0, seq_k, item, next_keys, next_values);
#endif
  for (int j0 = 0; j0 < tile_key_end; j0 += KEY_TILE) {
#if !PREFETCH
    fetch_tiles(k_head, v_head, j0, seq_k, item, next_keys, next_values);
#endif
    // Nobody overwrites the weights and values before every item is done with the previous tile's.
    barrier(CLK_LOCAL_MEM_FENCE);
    store_tiles(next_keys, next_values, item, key_tile, value_tile);
    barrier(CLK_LOCAL_MEM_FENCE);
#if PREFETCH
    if (j0 + KEY_TILE < tile_key_end) fetch_tiles(k_head, v_head, j0 + KEY_TILE, seq_k, item, next_keys, next_values);
#endif

    float s[ROWS_PER_ITEM][COLUMNS_PER_ITEM];
#pragma unroll
    for (int m = 0; m < ROWS_PER_ITEM; ++m) {
#pragma unroll
      for (int n = 0; n < COLUMNS_PER_ITEM; ++n) s[m][n] = 0.0f;
    }
    for (int d = 0; d < HEAD_DIM; ++d) {
      float query_values[ROWS_PER_ITEM];
      float key_values[COLUMNS_PER_ITEM];
#if STAGE_QUERIES
#pragma unroll
      for (int m = 0; m < ROWS_PER_ITEM; m += ROW_GROUP) {
        LOAD_GROUP(query_values + m, query_tile, d * QUERY_TILE + ROW_OF(ty, m), ROW_GROUP);
      }
#else
#pragma unroll
      for (int m = 0; m < ROWS_PER_ITEM; ++m) query_values[m] = query_row[m][d];
#endif
#pragma unroll
      for (int n = 0; n < COLUMNS_PER_ITEM; n += COLUMN_GROUP) {
        LOAD_GROUP(key_values + n, key_tile, d * KEY_TILE + COLUMN_OF(tx, n), COLUMN_GROUP);
      }
#pragma unroll
      for (int m = 0; m < ROWS_PER_ITEM; ++m) {
#pragma unroll
        for (int n = 0; n < COLUMNS_PER_ITEM; ++n) s[m][n] = fma(query_values[m], key_values[n], s[m][n]);
      }
    }

    // Keys a query may not see score -inf; then each item's maximum of its part of each row.
#pragma unroll
    for (int m = 0; m < ROWS_PER_ITEM; ++m) {
      float item_max = -INFINITY;
#pragma unroll
      for (int n = 0; n < COLUMNS_PER_ITEM; ++n) {
        const int key = j0 + COLUMN_OF(tx, n);
        const float scaled = SCORE_SCALE * s[m][n];
        const float masked = mask_row[m] && key < seq_k ? fma(mask_row[m][key], LOG2_E, scaled) : scaled;
        s[m][n] = key < key_end[m] ? masked : -INFINITY;
        item_max = fmax(item_max, s[m][n]);
      }
      row_partials[tx * QUERY_TILE + ROW_OF(ty, m)] = item_max;
    }
    // Every item has read the key tile (now free for the weights) and written its partial maxima.
    barrier(CLK_LOCAL_MEM_FENCE);

    float new_max[ROWS_PER_ITEM];
#pragma unroll
    for (int m = 0; m < ROWS_PER_ITEM; ++m) new_max[m] = running_max[m];
    for (int t = 0; t < ITEM_COLUMNS; ++t) {
#pragma unroll
      for (int m = 0; m < ROWS_PER_ITEM; m += ROW_GROUP) {
        float partial[ROW_GROUP];
        LOAD_GROUP(partial, row_partials, t * QUERY_TILE + ROW_OF(ty, m), ROW_GROUP);
#pragma unroll
        for (int l = 0; l < ROW_GROUP; ++l) new_max[m + l] = fmax(new_max[m + l], partial[l]);
      }
    }
#pragma unroll
    for (int m = 0; m < ROWS_PER_ITEM; ++m) {
      const int row = ROW_OF(ty, m);
      const float shift = softmax_shift(new_max[m]);
      const float correction = exp2(running_max[m] - shift);
      running_max[m] = new_max[m];
      float item_sum = 0.0f;
#pragma unroll
      for (int n = 0; n < COLUMNS_PER_ITEM; ++n) {
        const float weight = exp2(s[m][n] - shift);
        item_sum += weight;
        weight_tile[COLUMN_OF(tx, n) * WEIGHT_STRIDE + row] = weight;
      }
      running_sum[m] = running_sum[m] * correction + item_sum;
#pragma unroll
      for (int c = 0; c < VALUE_COLUMNS_PER_ITEM; ++c) acc[m][c] *= correction;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

#if STAGE_VALUES
    for (int key = 0; key < KEY_TILE; ++key) {
#else
    // Keys past seq_k are not read: their rows do not exist.
    const int tile_keys = min(KEY_TILE, seq_k - j0);
    for (int key = 0; key < tile_keys; ++key) {
      __global const float4* value_row = (__global const float4*)(v_head + (ulong)(j0 + key) * VALUE_DIM);
#endif
      float weights[ROWS_PER_ITEM];
      float values[VALUE_COLUMNS_PER_ITEM];
#pragma unroll
      for (int m = 0; m < ROWS_PER_ITEM; m += ROW_GROUP) {
        LOAD_GROUP(weights + m, weight_tile, key * WEIGHT_STRIDE + ROW_OF(ty, m), ROW_GROUP);
      }
#pragma unroll
      for (int c = 0; c < VALUE_COLUMNS_PER_ITEM; c += GROUP) {
#if STAGE_VALUES
        LOAD_GROUP(values + c, value_tile, key * VALUE_STRIDE + VALUE_COLUMN_OF(tx, c), GROUP);
#else
        const int column = VALUE_COLUMN_OF(tx, c);
        const float4 group = column < VALUE_DIM ? value_row[column / 4] : (float4)(0.0f);
        values[c] = group.x;
        values[c + 1] = group.y;
        values[c + 2] = group.z;
        values[c + 3] = group.w;
#endif
      }
#pragma unroll
      for (int m = 0; m < ROWS_PER_ITEM; ++m) {
#pragma unroll
        for (int c = 0; c < VALUE_COLUMNS_PER_ITEM; ++c) acc[m][c] = fma(weights[m], values[c], acc[m][c]);
      }
    }
  }

  // The row sums: each item's part, reduced across the grid row. The last reads of row_partials
  // (the maxima) came before the loop's last barrier.
#pragma unroll
  for (int m = 0; m < ROWS_PER_ITEM; ++m) row_partials[tx * QUERY_TILE + ROW_OF(ty, m)] = running_sum[m];
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int m = 0; m < ROWS_PER_ITEM; ++m) {
    const int row = ROW_OF(ty, m);
    if (row >= tile_queries) continue;
    float sum = 0.0f;
    for (int t = 0; t < ITEM_COLUMNS; ++t) sum += row_partials[t * QUERY_TILE + row];
    // No visible key: the row is zeros, as the reference defines it. A NaN sum propagates.
    const float inverse_sum = sum == 0.0f ? 0.0f : 1.0f / sum;
    __global float* out_row = out + ((ulong)bh * seq_q + first_query + row) * VALUE_DIM;
#pragma unroll
    for (int c = 0; c < VALUE_COLUMNS_PER_ITEM; ++c) {
      const int column = VALUE_COLUMN_OF(tx, c);
      if (column < VALUE_DIM) out_row[column] = acc[m][c] * inverse_sum;
    }
  }
}
