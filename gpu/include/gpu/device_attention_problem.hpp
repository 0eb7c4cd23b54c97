#pragma once

#include <span>

#include "attention/attention_problem.hpp"
#include "gpu/opencl_handle.hpp"
#include "gpu/opencl_runtime.hpp"

namespace gpu {

// One AttentionProblem's tensors in the device memory of one runtime, same layouts as on the host.
struct DeviceAttentionProblem {
  attention::AttentionShape shape;
  attention::CausalAlignment causal = attention::CausalAlignment::none;
  float scale = 1.0f;
  Buffer q;
  Buffer k;
  Buffer v;
  // Null when the problem has no mask.
  Buffer mask;
  // shape.out_elements() floats, written by the kernels.
  Buffer out;
};

// The largest dimension the kernels accept: their indices and key bounds (seq_q + seq_k + 1) are
// 32-bit ints; offsets into whole tensors are 64-bit.
inline constexpr std::size_t kMaxKernelDimension = std::size_t{1} << 29;

// Validates `problem` (attention::validate, then every dimension at most kMaxKernelDimension, both
// std::invalid_argument) and copies its inputs to the device; problem.out is left alone.
DeviceAttentionProblem upload_problem(const OpenClRuntime& runtime, const attention::AttentionProblem& problem);

// Copies the device output into `out` (shape.out_elements() floats), once every command enqueued
// before has finished.
void download_output(const OpenClRuntime& runtime, const DeviceAttentionProblem& problem, std::span<float> out);

}  // namespace gpu
