// FlashAttention-2 on NVIDIA's tensor cores, to float32 accuracy: warp-level mma.sync (PTX
// m16n8k8, TF32 inputs, float32 accumulation) with each float operand split in two TF32 halves and
// every product taken as a.lo * b.hi + a.hi * b.lo + a.hi * b.hi (lo * lo, about 2^-22 of the
// product, is dropped): three tensor-core products for each float one, about float32's rounding
// error. The split costs two full-rate instructions and no conversion: hi is x with the 13 low
// fraction bits cleared (TF32 keeps 10 of float's 23), lo = x - hi is exact in float (at most 13
// significant bits), and lo goes to the tensor core as it is: TF32 operands are read from float
// bits with the low 13 ignored, which costs lo at most 2 of its 13 bits, 2^-21 of x. A NaN stays a
// NaN in hi (its exponent is all ones and, quiet, its top fraction bit set); an infinity gives
// hi = inf, lo = NaN, a NaN score, which the softmax spreads over the row as an infinite score does.
//
// One work-group per (batch*head, tile of 16 * WARPS queries); warp w owns the tile's rows
// [16w, 16w + 16) and keeps its scores, weights and output rows in registers, in the mma
// fragment layouts, with FlashAttention-2's online softmax in base 2 (queries are scaled by
// scale * log2(e), the mask by log2(e)). The work-group shares one tile of KEY_TILE keys and their
// values in local memory. The host defines HEAD_DIM, VALUE_DIM, WARPS, KEY_TILE, QUERY_SPLIT (the
// queries' split halves kept in registers, 1, or the queries, split again for every key tile, 0:
// half the registers), PREFETCH (the next tiles fetched into registers while the current ones are
// computed on) and EMULATE.
//
// Fragments of m16n8k8 (lane = 4 * g + t, g = lane / 4, t = lane % 4), PTX ISA "Matrix Fragments
// for mma.m16n8k8", .tf32 and .f32:
//   A (16 x 8, row major): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   B (8 x 8, column major): b0 (t, g), b1 (t + 4, g)
//   C, D (16 x 8): c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
// A sum over k does not depend on the order of its terms, so the kernel permutes k within each
// block of 8: the fragments' k = t holds element 2t and k = t + 4 holds element 2t + 1. Then
//   - Q's and K's fragments are two adjacent floats of a row (one 64-bit load each);
//   - the weights P, computed in C's layout (columns 2t, 2t + 1 of rows g, g + 8), are already
//     A's fragment for P V: a0 = c0, a1 = c2, a2 = c1, a3 = c3, with no exchange between lanes;
//   - V's fragment is rows 2t and 2t + 1 of column g.
//
// Local memory: key_tile [KEY_TILE][KEY_STRIDE] and value_tile [KEY_TILE][VALUE_STRIDE], zeros past
// seq_k and past the dimensions. The strides make a warp's fragment loads conflict-free: K's
// 64-bit loads go in two phases of 16 lanes, (g, 2t) at g * KEY_STRIDE + 2t, distinct banks when
// KEY_STRIDE = 8 (mod 32); V's 32-bit loads, (2t, g) at 2t * VALUE_STRIDE + g, distinct when
// 2 * VALUE_STRIDE = 8 (mod 32).
//
// With EMULATE the warp-level instructions (mma.sync, shfl.sync) are computed by the
// work-items themselves, exchanging fragments through local memory, so that every index of the
// kernel is tested on devices without tensor cores (PoCL in CI); the fragment layouts above are
// then the only part that the real instructions alone check.

#define WARP 32
#define ITEMS (WARPS * WARP)
#define QUERY_TILE (WARPS * 16)
#define HEAD_PAD ((HEAD_DIM + 7) / 8 * 8)
#define VALUE_PAD ((VALUE_DIM + 7) / 8 * 8)
#define DEPTH_STEPS (HEAD_PAD / 8)
#define KEY_BLOCKS (KEY_TILE / 8)
#define VALUE_BLOCKS (VALUE_PAD / 8)
#define KEY_STRIDE (HEAD_PAD + 8)
#define VALUE_STRIDE (VALUE_PAD + 4)
#define LOG2_E 1.4426950408889634f
#define TF32_MASK 0xffffe000u

// Tiles move between global and local memory in chunks of 4 floats where both dimensions allow
// (a chunk is then wholly inside a row or wholly padding), else one by one.
#if HEAD_DIM % 4 == 0 && VALUE_DIM % 4 == 0
#define CHUNK 4
typedef float4 chunk_t;
#define LOAD_CHUNK(pointer) vload4(0, pointer)
#define STORE_CHUNK(value, pointer) vstore4(value, 0, pointer)
#else
#define CHUNK 1
typedef float chunk_t;
#define LOAD_CHUNK(pointer) (*(pointer))
#define STORE_CHUNK(value, pointer) (*(pointer) = (value))
#endif
#define KEY_CHUNKS (KEY_TILE * HEAD_PAD / CHUNK)
#define VALUE_CHUNKS (KEY_TILE * VALUE_PAD / CHUNK)
#define KEY_LOADS ((KEY_CHUNKS + ITEMS - 1) / ITEMS)
#define VALUE_LOADS ((VALUE_CHUNKS + ITEMS - 1) / ITEMS)

#if EMULATE
// Unrolling the emulated instructions only makes PoCL's compilation slow.
#define UNROLL
// Every emulated instruction is one step of the whole work-group (barriers), so every call must be
// reached by every work-item the same number of times: the kernel's loops have uniform bounds.
#define EXCHANGE_FLOATS (6 * WARP)

// D = A B + C, D and C in `acc`, as one warp's mma.sync.m16n8k8 computes it: operands read as TF32
// (the low 13 bits ignored), products and sums in float.
inline void mma_tf32(float* acc, const uint* a, const uint* b, __local float* exchange) {
  const int lane = get_local_id(0) % WARP;
  __local uint* slots = (__local uint*)exchange;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = 0; i < 4; ++i) slots[i * WARP + lane] = a[i] & TF32_MASK;
  slots[4 * WARP + lane] = b[0] & TF32_MASK;
  slots[5 * WARP + lane] = b[1] & TF32_MASK;
  barrier(CLK_LOCAL_MEM_FENCE);
  const int g = lane / 4;
  const int t = lane % 4;
  for (int i = 0; i < 4; ++i) {
    const int row = g + 8 * (i / 2);
    const int column = 2 * t + i % 2;
    float sum = acc[i];
    for (int k = 0; k < 8; ++k) {
      // A (row, k) is lane 4 * (row % 8) + k % 4's register (row >= 8) + 2 (k >= 4); B (k, column)
      // is lane 4 * column + k % 4's register k >= 4.
      const float a_value = as_float(slots[((row >= 8) + 2 * (k >= 4)) * WARP + 4 * (row % 8) + k % 4]);
      const float b_value = as_float(slots[(4 + (k >= 4)) * WARP + 4 * column + k % 4]);
      sum = fma(a_value, b_value, sum);
    }
    acc[i] = sum;
  }
}

// shfl.sync.bfly: the value of lane ^ mask.
inline float shuffle_xor(float x, int mask, __local float* exchange) {
  const int lane = get_local_id(0) % WARP;
  barrier(CLK_LOCAL_MEM_FENCE);
  exchange[lane] = x;
  barrier(CLK_LOCAL_MEM_FENCE);
  return exchange[lane ^ mask];
}
#else
#define UNROLL _Pragma("unroll")

inline void mma_tf32(float* acc, const uint* a, const uint* b, __local float* exchange) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%10, %11, %12, %13};"
      : "=f"(acc[0]), "=f"(acc[1]), "=f"(acc[2]), "=f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(acc[0]), "f"(acc[1]), "f"(acc[2]),
        "f"(acc[3]));
}

inline float shuffle_xor(float x, int mask, __local float* exchange) {
  float result;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(result) : "f"(x), "r"(mask));
  return result;
}
#endif

inline void split_tf32(float x, uint* hi, uint* lo) {
  *hi = as_uint(x) & TF32_MASK;
  *lo = as_uint(x - as_float(*hi));
}

// acc += A B in three TF32 products, the small ones first.
inline void mma_split(float* acc, const uint* a_hi, const uint* a_lo, const uint* b_hi, const uint* b_lo,
                      __local float* exchange) {
  mma_tf32(acc, a_lo, b_hi, exchange);
  mma_tf32(acc, a_hi, b_lo, exchange);
  mma_tf32(acc, a_hi, b_hi, exchange);
}

// The chunks of keys and values [j0, j0 + KEY_TILE) this item copies, zeros past seq_k and past
// the dimensions; consecutive items take consecutive chunks of a row (coalesced reads).
inline void fetch_tiles(__global const float* k_head, __global const float* v_head, int j0, int seq_k,
                        chunk_t* keys, chunk_t* values) {
  const int item = get_local_id(0);
  UNROLL
  for (int i = 0; i < KEY_LOADS; ++i) {
    const int e = item + i * ITEMS;
    const int row = e / (HEAD_PAD / CHUNK);
    const int column = e % (HEAD_PAD / CHUNK) * CHUNK;
    keys[i] = e < KEY_CHUNKS && j0 + row < seq_k && column < HEAD_DIM
                  ? LOAD_CHUNK(k_head + (ulong)(j0 + row) * HEAD_DIM + column)
                  : (chunk_t)(0.0f);
  }
  UNROLL
  for (int i = 0; i < VALUE_LOADS; ++i) {
    const int e = item + i * ITEMS;
    const int row = e / (VALUE_PAD / CHUNK);
    const int column = e % (VALUE_PAD / CHUNK) * CHUNK;
    values[i] = e < VALUE_CHUNKS && j0 + row < seq_k && column < VALUE_DIM
                    ? LOAD_CHUNK(v_head + (ulong)(j0 + row) * VALUE_DIM + column)
                    : (chunk_t)(0.0f);
  }
}

inline void store_tiles(const chunk_t* keys, const chunk_t* values, __local float* key_tile,
                        __local float* value_tile) {
  const int item = get_local_id(0);
  UNROLL
  for (int i = 0; i < KEY_LOADS; ++i) {
    const int e = item + i * ITEMS;
    if (e < KEY_CHUNKS) {
      STORE_CHUNK(keys[i], key_tile + e / (HEAD_PAD / CHUNK) * KEY_STRIDE + e % (HEAD_PAD / CHUNK) * CHUNK);
    }
  }
  UNROLL
  for (int i = 0; i < VALUE_LOADS; ++i) {
    const int e = item + i * ITEMS;
    if (e < VALUE_CHUNKS) {
      STORE_CHUNK(values[i], value_tile + e / (VALUE_PAD / CHUNK) * VALUE_STRIDE + e % (VALUE_PAD / CHUNK) * CHUNK);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(ITEMS, 1, 1)))
void mma_attention(__global const float* restrict q, __global const float* restrict k,
                   __global const float* restrict v, __global const float* restrict mask,
                   __global float* restrict out, int group, int seq_q, int seq_k, int key_offset, float scale) {
  // Declared as float4 for the alignment of 64- and 128-bit accesses; used as float.
  __local float4 key_vectors[KEY_TILE * KEY_STRIDE / 4];
  __local float4 value_vectors[KEY_TILE * VALUE_STRIDE / 4];
  __local float* key_tile = (__local float*)key_vectors;
  __local float* value_tile = (__local float*)value_vectors;
#if EMULATE
  __local float exchanges[WARPS * EXCHANGE_FLOATS];
#endif

  const int item = get_local_id(0);
  const int warp = item / WARP;
  const int lane = item % WARP;
  const int g = lane / 4;
  const int t = lane % 4;
#if EMULATE
  __local float* exchange = exchanges + warp * EXCHANGE_FLOATS;
#else
  __local float* exchange = 0;
#endif

  // The last query tiles first: under a causal limit they see the most keys, and started first they
  // no longer finish alone after the short ones.
  const int first_query = (get_num_groups(0) - 1 - get_group_id(0)) * QUERY_TILE;
  const int bh = get_group_id(1);
  const int tile_queries = min(QUERY_TILE, seq_q - first_query);
  // The tile's last query sees the most keys: tiles entirely above the causal diagonal are skipped.
  const int tile_key_end = visible_key_end(first_query + tile_queries - 1, key_offset, seq_k);
  __global const float* k_head = k + (ulong)(bh / group) * seq_k * HEAD_DIM;
  __global const float* v_head = v + (ulong)(bh / group) * seq_k * VALUE_DIM;

  // This item's rows of the tile: h = 0 is row 16 warp + g, h = 1 row 16 warp + g + 8.
  int key_end[2];
  __global const float* mask_row[2];
  float running_max[2];
  float running_sum[2];
  // The scaled queries' A fragments, [step][register], step s covering dimensions 8s..8s+7.
#if QUERY_SPLIT
  uint query_hi[DEPTH_STEPS][4];
  uint query_lo[DEPTH_STEPS][4];
#else
  float query[DEPTH_STEPS][4];
#endif
  const float query_scale = scale * LOG2_E;
  UNROLL
  for (int h = 0; h < 2; ++h) {
    const int row = warp * 16 + g + 8 * h;
    const int query_index = first_query + row;
    // Rows past seq_q see no key: their weights are 0 and nothing of them is written.
    key_end[h] = query_index < seq_q ? visible_key_end(query_index, key_offset, seq_k) : 0;
    mask_row[h] = mask ? mask + (ulong)min(query_index, seq_q - 1) * seq_k : 0;
    running_max[h] = -INFINITY;
    running_sum[h] = 0.0f;
    __global const float* q_row = q + ((ulong)bh * seq_q + min(query_index, seq_q - 1)) * HEAD_DIM;
    UNROLL
    for (int s = 0; s < DEPTH_STEPS; ++s) {
      UNROLL
      for (int pair = 0; pair < 2; ++pair) {
        const int d = 8 * s + 2 * t + pair;
        const float value = query_index < seq_q && d < HEAD_DIM ? query_scale * q_row[d] : 0.0f;
#if QUERY_SPLIT
        split_tf32(value, &query_hi[s][h + 2 * pair], &query_lo[s][h + 2 * pair]);
#else
        query[s][h + 2 * pair] = value;
#endif
      }
    }
  }
  // The output rows' C fragments, [block of 8 value columns][register].
  float acc[VALUE_BLOCKS][4];
  UNROLL
  for (int b = 0; b < VALUE_BLOCKS; ++b) {
    UNROLL
    for (int i = 0; i < 4; ++i) acc[b][i] = 0.0f;
  }

  chunk_t next_keys[KEY_LOADS];
  chunk_t next_values[VALUE_LOADS];
#if PREFETCH
  if (tile_key_end > 0) fetch_tiles(k_head, v_head, 0, seq_k, next_keys, next_values);
#endif
  for (int j0 = 0; j0 < tile_key_end; j0 += KEY_TILE) {
#if !PREFETCH
    fetch_tiles(k_head, v_head, j0, seq_k, next_keys, next_values);
#endif
    // Nobody overwrites the tiles before every warp is done with the previous ones.
    barrier(CLK_LOCAL_MEM_FENCE);
    store_tiles(next_keys, next_values, key_tile, value_tile);
    barrier(CLK_LOCAL_MEM_FENCE);
#if PREFETCH
    if (j0 + KEY_TILE < tile_key_end) fetch_tiles(k_head, v_head, j0 + KEY_TILE, seq_k, next_keys, next_values);
#endif

    // Scores of the warp's 16 rows and the tile's keys, [block of 8 keys][register].
    float scores[KEY_BLOCKS][4];
    UNROLL
    for (int n = 0; n < KEY_BLOCKS; ++n) {
      UNROLL
      for (int i = 0; i < 4; ++i) scores[n][i] = 0.0f;
    }
    UNROLL
    for (int s = 0; s < DEPTH_STEPS; ++s) {
#if QUERY_SPLIT
      const uint* step_hi = query_hi[s];
      const uint* step_lo = query_lo[s];
#else
      uint step_hi[4];
      uint step_lo[4];
      UNROLL
      for (int i = 0; i < 4; ++i) split_tf32(query[s][i], &step_hi[i], &step_lo[i]);
#endif
      UNROLL
      for (int n = 0; n < KEY_BLOCKS; ++n) {
        const float2 pair = *(__local const float2*)(key_tile + (8 * n + g) * KEY_STRIDE + 8 * s + 2 * t);
        uint key_hi[2];
        uint key_lo[2];
        split_tf32(pair.x, &key_hi[0], &key_lo[0]);
        split_tf32(pair.y, &key_hi[1], &key_lo[1]);
        mma_split(scores[n], step_hi, step_lo, key_hi, key_lo, exchange);
      }
    }

    // Keys a query may not see score -inf; then the rows' maxima over the 4 lanes that hold them.
    float new_max[2] = {running_max[0], running_max[1]};
    UNROLL
    for (int n = 0; n < KEY_BLOCKS; ++n) {
      UNROLL
      for (int i = 0; i < 4; ++i) {
        const int h = i / 2;
        const int key = j0 + 8 * n + 2 * t + i % 2;
        const float score = scores[n][i];
        const float masked = mask_row[h] && key < seq_k ? fma(mask_row[h][key], LOG2_E, score) : score;
        scores[n][i] = key < key_end[h] ? masked : -INFINITY;
        new_max[h] = fmax(new_max[h], scores[n][i]);
      }
    }
    float shift[2];
    UNROLL
    for (int h = 0; h < 2; ++h) {
      new_max[h] = fmax(new_max[h], shuffle_xor(new_max[h], 1, exchange));
      new_max[h] = fmax(new_max[h], shuffle_xor(new_max[h], 2, exchange));
      shift[h] = softmax_shift(new_max[h]);
      const float correction = exp2(running_max[h] - shift[h]);
      running_max[h] = new_max[h];
      running_sum[h] *= correction;
      UNROLL
      for (int b = 0; b < VALUE_BLOCKS; ++b) {
        acc[b][2 * h] *= correction;
        acc[b][2 * h + 1] *= correction;
      }
    }

    // P V: the weights of keys 8n..8n+7 are the A fragment of step n.
    UNROLL
    for (int n = 0; n < KEY_BLOCKS; ++n) {
      float weights[4];
      UNROLL
      for (int i = 0; i < 4; ++i) {
        weights[i] = exp2(scores[n][i] - shift[i / 2]);
        running_sum[i / 2] += weights[i];
      }
      uint weight_hi[4];
      uint weight_lo[4];
      split_tf32(weights[0], &weight_hi[0], &weight_lo[0]);
      split_tf32(weights[2], &weight_hi[1], &weight_lo[1]);
      split_tf32(weights[1], &weight_hi[2], &weight_lo[2]);
      split_tf32(weights[3], &weight_hi[3], &weight_lo[3]);
      __local const float* value_rows = value_tile + (8 * n + 2 * t) * VALUE_STRIDE + g;
      UNROLL
      for (int b = 0; b < VALUE_BLOCKS; ++b) {
        uint value_hi[2];
        uint value_lo[2];
        split_tf32(value_rows[8 * b], &value_hi[0], &value_lo[0]);
        split_tf32(value_rows[VALUE_STRIDE + 8 * b], &value_hi[1], &value_lo[1]);
        mma_split(acc[b], weight_hi, weight_lo, value_hi, value_lo, exchange);
      }
    }
  }

  // Each lane summed its own columns' weights: the row sums over the 4 lanes of a row.
  float inverse_sum[2];
  UNROLL
  for (int h = 0; h < 2; ++h) {
    float sum = running_sum[h];
    sum += shuffle_xor(sum, 1, exchange);
    sum += shuffle_xor(sum, 2, exchange);
    // No visible key: the row is zeros, as the reference defines it. A NaN sum propagates.
    inverse_sum[h] = sum == 0.0f ? 0.0f : 1.0f / sum;
  }
  UNROLL
  for (int i = 0; i < 4; ++i) {
    const int row = warp * 16 + g + 8 * (i / 2);
    if (row >= tile_queries) continue;
    __global float* out_row = out + ((ulong)bh * seq_q + first_query + row) * VALUE_DIM;
    UNROLL
    for (int b = 0; b < VALUE_BLOCKS; ++b) {
      const int column = 8 * b + 2 * t + i % 2;
      if (column < VALUE_DIM) out_row[column] = acc[b][i] * inverse_sum[i / 2];
    }
  }
}
