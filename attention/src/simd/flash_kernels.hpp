#pragma once

#include <cstddef>
#include <span>

#include "attention/attention_problem.hpp"
#include "isa/isa.hpp"
#include "attention/visible_keys.hpp"

namespace attention::simd {

// One flash call as the per-ISA kernels see it: plain pointers, no std::span or std::optional,
// whose inline members would be shared with code compiled for other ISAs (see flash_kernel.inl).
struct FlashCall {
  AttentionShape shape;
  const float* q;
  const float* k;
  const float* v;
  const float* mask;  // [seq_q, seq_k], or nullptr for none
  float* out;
  KeyWindow window;
  // scale * log2(e): the kernels compute scores in base 2 and exponentiate with exp2.
  float query_factor;
};

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
  // Query rows one task handles: the tasks of a call are (batch, head, query tile).
  std::size_t query_tile_rows;
  // Floats of the scratch each thread needs: a multiple of 16, so that consecutive threads'
  // scratch stays 64-byte aligned and on separate cache lines.
  std::size_t (*thread_floats)(const AttentionShape& shape);
  // Writes the output rows of query tile `tile` of (batch, head) `bh` = b * heads + h;
  // `scratch` is thread_floats 64-byte aligned floats of its own.
  void (*attend)(const FlashCall& call, std::size_t bh, std::size_t tile, float* scratch);
  // Flash-Decoding: the most rows one task takes, the floats of scratch each thread needs (a
  // multiple of 16), and the task itself, which reads each key and value row once for all its
  // rows and leaves its partial result where `task` says.
  std::size_t decode_task_rows;
  std::size_t (*decode_thread_floats)(const AttentionShape& shape);
  void (*decode)(const FlashCall& call, const DecodeTask& task, float* scratch);
};

// Defined by flash_kernel_<isa>.cpp, each compiled for its instruction set alone.
namespace avx512f {
extern const FlashKernels kFlashKernels;
}
namespace avx2 {
extern const FlashKernels kFlashKernels;
}
namespace sse2 {
extern const FlashKernels kFlashKernels;
}

struct FlashIsa {
  isa::Isa isa;
  const FlashKernels* kernels;
};

// Every compiled instruction set, widest first: avx512f, avx2 (with FMA), sse2 (the x86-64 baseline).
std::span<const FlashIsa> all_flash_isas();
// The widest one this CPU supports within TOKBENCH_MAX_ISA (isa::widest_usable), chosen once.
const FlashIsa& best_flash_isa();

}  // namespace attention::simd
