#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "attention/attention_problem.hpp"
#include "attention/bfloat16.hpp"
#include "attention/visible_keys.hpp"
#include "isa/isa.hpp"

namespace attention::simd {

// One flash call as the per-ISA kernels see it: plain pointers, no std::span or std::optional,
// whose inline members would be shared with code compiled for other ISAs (see flash_kernel.inl).
// Q, K, V and O hold Element (float or bfloat16); the mask is float32 either way.
template <class Element>
struct ElementFlashCall {
  AttentionShape shape;
  const Element* q;
  const Element* k;
  const Element* v;
  const float* mask;  // [seq_q, seq_k], or nullptr for none
  Element* out;
  KeyWindow window;
  // scale * log2(e): the kernels compute scores in base 2 and exponentiate with exp2.
  float query_factor;
};

using FlashCall = ElementFlashCall<float>;
using Bf16FlashCall = ElementFlashCall<bfloat16>;

// One task of Flash-Decoding (decode_sdpa.cpp): rows [first_row, first_row + rows) of a group,
// the query rows that share key/value head kv of batch b (group = b * kv_heads + kv; row
// r = g * seq_q + i is query i of head kv * heads / kv_heads + g), over keys [key_begin, key_end).
// Its partial result, in the caller's workspace: per row the running max of its base-2 scores
// (-inf while it has seen no key), the sum of its weights exp2(score - max), and its unnormalised
// output row, value_stride floats apart (64-byte aligned, a multiple of 16).
struct DecodeTask {
  std::size_t group;
  std::size_t first_row;
  std::size_t rows;
  std::size_t key_begin;
  std::size_t key_end;
  float* row_max;
  float* row_sum;
  float* outputs;
  std::size_t value_stride;
};

// The flash kernels compiled for one instruction set.
struct FlashKernels {
  // Query rows of a query tile, and the most consecutive tiles one task takes: the tasks of a call
  // are (batch, head, tiles), as many tiles a task as the kernels take where that leaves every
  // thread enough tasks (run_flash). Kernels that read each block of keys once for all of a task's
  // rows gain from more.
  std::size_t query_tile_rows;
  std::size_t max_task_tiles;
  // Floats of the scratch each thread needs: a multiple of 16, so that consecutive threads'
  // scratch stays 64-byte aligned and on separate cache lines.
  std::size_t (*thread_floats)(const AttentionShape& shape);
  // Writes the output rows of query tiles `tile` to `tile + tiles - 1` (at most max_task_tiles)
  // of (batch, head) `bh` = b * heads + h; `scratch` is thread_floats 64-byte aligned floats of
  // its own.
  void (*attend)(const FlashCall& call, std::size_t bh, std::size_t tile, std::size_t tiles, float* scratch);
  // Flash-Decoding: the most rows one task takes, the floats of scratch each thread needs (a
  // multiple of 16), and the task itself, which reads each key and value row once for all its
  // rows and leaves its partial result where `task` says.
  std::size_t decode_task_rows;
  std::size_t (*decode_thread_floats)(const AttentionShape& shape);
  void (*decode)(const FlashCall& call, const DecodeTask& task, float* scratch);
};

// The bfloat16 kernels of one instruction set: as FlashKernels, on bfloat16 inputs and outputs.
// Both widen bfloat16 to float where the ISA has no bfloat16 products, and multiply bfloat16
// pairs where it has AVX512-BF16 (flash_kernel.inl, decode_kernel.inl).
struct Bf16FlashKernels {
  std::size_t query_tile_rows;
  std::size_t max_task_tiles;
  std::size_t (*thread_floats)(const AttentionShape& shape);
  void (*attend)(const Bf16FlashCall& call, std::size_t bh, std::size_t tile, std::size_t tiles, float* scratch);
  std::size_t decode_task_rows;
  std::size_t (*decode_thread_floats)(const AttentionShape& shape);
  void (*decode)(const Bf16FlashCall& call, const DecodeTask& task, float* scratch);
  // A probe of how the kernels take products (product_rounds.inl): products a round, and the
  // rounds themselves, for best_bf16_flash_isa and the benchmarks' calibrations to time.
  std::uint64_t (*products_per_round)();
  float (*run_product_rounds)(std::uint64_t rounds, float seed);
};

// Defined by flash_kernel_<isa>.cpp, each compiled for its instruction set alone: the float
// kernels for avx512f, avx2 and sse2; the bfloat16 ones for those (products in float32 on
// bfloat16 widened a tile at a time), for avx512bf16 (products of bfloat16 pairs) and for amxbf16
// (products of AMX tiles).
namespace amxbf16 {
extern const Bf16FlashKernels kBf16FlashKernels;
}
namespace avx512bf16 {
extern const Bf16FlashKernels kBf16FlashKernels;
}
namespace avx512f {
extern const FlashKernels kFlashKernels;
extern const Bf16FlashKernels kBf16FlashKernels;
}
namespace avx2 {
extern const FlashKernels kFlashKernels;
extern const Bf16FlashKernels kBf16FlashKernels;
}
namespace sse2 {
extern const FlashKernels kFlashKernels;
extern const Bf16FlashKernels kBf16FlashKernels;
}

template <class Kernels>
struct IsaKernels {
  isa::Isa isa;
  const Kernels* kernels;
};
using FlashIsa = IsaKernels<FlashKernels>;
using Bf16FlashIsa = IsaKernels<Bf16FlashKernels>;

// Every compiled instruction set, widest first: avx512f, avx2 (with FMA), sse2 (the x86-64 baseline).
std::span<const FlashIsa> all_flash_isas();
// The widest one this CPU supports within TOKBENCH_MAX_ISA (isa::widest_usable), chosen once.
const FlashIsa& best_flash_isa();
// The same for the bfloat16 kernels: amxbf16, avx512bf16, avx512f, avx2, sse2. The widest usable, except
// that avx512bf16 gives way to avx512f where its products are not kPairsMargin times as fast on
// this CPU (bfloat16_pairs_pay_off): vdpbf16ps takes two products a lane, but some CPUs issue it
// at half the rate of an FMA, and then the widening kernels are faster (docs/sdpa.md).
std::span<const Bf16FlashIsa> all_bf16_flash_isas();
const Bf16FlashIsa& best_bf16_flash_isa();
// The entry of that level (every level of isa::Isa has one).
const Bf16FlashIsa& bf16_flash_isa(isa::Isa level);
inline constexpr double kPairsMargin = 1.5;
// Whether this CPU's vdpbf16ps gives at least kPairsMargin times avx512f's FMA products a
// nanosecond, timed once on the calling thread (a few milliseconds); false where avx512bf16 is
// not usable. TOKBENCH_BF16_PAIRS=1 or 0 answers instead of the timing (where avx512bf16 is
// usable), so that bfloat16 outputs are the same in every process; any other value throws
// std::invalid_argument.
bool bfloat16_pairs_pay_off();

}  // namespace attention::simd
