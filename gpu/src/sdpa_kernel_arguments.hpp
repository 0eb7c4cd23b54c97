#pragma once

#include <CL/cl.h>

#include <stdexcept>
#include <string>

#include "attention/visible_keys.hpp"
#include "gpu/device_attention_problem.hpp"

namespace gpu {

// The scalar arguments every SDPA kernel takes, as the exact OpenCL types of their parameters.
struct SdpaKernelArguments {
  cl_int group;  // heads / kv_heads
  cl_int seq_q;
  cl_int seq_k;
  cl_int key_offset;  // attention::KeyWindow::offset: query i sees keys [0, clamp(i + key_offset, 0, seq_k))
  cl_float scale;
};

inline SdpaKernelArguments sdpa_kernel_arguments(const DeviceAttentionProblem& problem,
                                                 const attention::AttentionShape& prepared_shape) {
  const attention::AttentionShape& shape = problem.shape;
  if (shape.batch != prepared_shape.batch || shape.heads != prepared_shape.heads ||
      shape.kv_heads != prepared_shape.kv_heads || shape.seq_q != prepared_shape.seq_q ||
      shape.seq_k != prepared_shape.seq_k || shape.head_dim != prepared_shape.head_dim ||
      shape.value_dim != prepared_shape.value_dim) {
    throw std::invalid_argument("PreparedSdpa::enqueue: the problem's shape is not the prepared one");
  }
  return SdpaKernelArguments{static_cast<cl_int>(shape.heads / shape.kv_heads), static_cast<cl_int>(shape.seq_q),
                             static_cast<cl_int>(shape.seq_k), static_cast<cl_int>(attention::key_window(shape, problem.causal).offset),
                             problem.scale};
}

}  // namespace gpu
