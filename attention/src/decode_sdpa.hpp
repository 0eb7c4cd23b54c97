#pragma once

#include <cstddef>

#include "attention/attention_problem.hpp"
#include "simd/flash_kernels.hpp"

namespace attention {

// sdpa_decode and its workspace with the kernels of a given instruction set (which this CPU must
// support): how the tests reach every ISA's decode task.
void sdpa_decode_with(const simd::FlashKernels& kernels, const AttentionProblem& problem);
std::size_t decode_workspace_bytes_with(const simd::FlashKernels& kernels, const AttentionShape& shape);
// The same for sdpa_decode_bf16, with the bfloat16 kernels of a given instruction set.
void sdpa_decode_with(const simd::Bf16FlashKernels& kernels, const Bf16AttentionProblem& problem);
std::size_t decode_workspace_bytes_with(const simd::Bf16FlashKernels& kernels, const AttentionShape& shape);

}  // namespace attention
