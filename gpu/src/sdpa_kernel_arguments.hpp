#pragma once

#include <CL/cl.h>

#include <stdexcept>
#include <string>

#include <array>
#include <vector>

#include "attention/visible_keys.hpp"
#include "gpu/device_attention_problem.hpp"
#include "gpu/opencl_handle.hpp"
#include "gpu/opencl_launch.hpp"

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

// Enqueues a fused SDPA kernel (parameters q, k, v, mask, out, then SdpaKernelArguments' in order)
// over `groups` work-groups of `items` work-items along the queries, times one per query head, and
// returns its event.
inline std::vector<Event> enqueue_fused_sdpa(cl_command_queue queue, cl_kernel kernel,
                                             const DeviceAttentionProblem& problem,
                                             const attention::AttentionShape& prepared_shape, std::size_t groups,
                                             std::size_t items) {
  const SdpaKernelArguments arguments = sdpa_kernel_arguments(problem, prepared_shape);
  set_kernel_arguments(kernel, problem.q, problem.k, problem.v, problem.mask, problem.out, arguments.group,
                       arguments.seq_q, arguments.seq_k, arguments.key_offset, arguments.scale);
  const std::array global{groups * items, prepared_shape.batch * prepared_shape.heads};
  const std::array local{items, std::size_t{1}};
  std::vector<Event> events;
  events.push_back(enqueue_kernel(queue, kernel, global, local));
  return events;
}

}  // namespace gpu
