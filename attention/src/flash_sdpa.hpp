#pragma once

#include <cstddef>

#include "attention/attention_problem.hpp"
#include "simd/flash_kernels.hpp"

namespace attention {

// sdpa_flash (float) and sdpa_flash_bf16 and their workspaces with the kernels of a given
// instruction set (which this CPU must support): how the tests reach every ISA's kernels.
void sdpa_flash_with(const simd::FlashKernels& kernels, const AttentionProblem& problem);
void sdpa_flash_with(const simd::Bf16FlashKernels& kernels, const Bf16AttentionProblem& problem);
std::size_t flash_workspace_bytes_with(const simd::FlashKernels& kernels, const AttentionShape& shape);
std::size_t flash_workspace_bytes_with(const simd::Bf16FlashKernels& kernels, const AttentionShape& shape);

// The call as the per-ISA kernels see it (flash's and decode's): plain pointers, the key window,
// scale * log2(e). `problem` must be valid.
simd::FlashCall flash_call_of(const AttentionProblem& problem);
simd::Bf16FlashCall flash_call_of(const Bf16AttentionProblem& problem);

}  // namespace attention
