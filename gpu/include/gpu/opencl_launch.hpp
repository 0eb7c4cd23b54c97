#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <span>
#include <type_traits>

#include "gpu/opencl_error.hpp"
#include "gpu/opencl_handle.hpp"

namespace gpu {

template <typename Scalar>
  requires std::is_arithmetic_v<Scalar>
void set_kernel_argument(cl_kernel kernel, cl_uint index, const Scalar& value) {
  check(clSetKernelArg(kernel, index, sizeof(value), &value), "clSetKernelArg");
}

// A null buffer passes a NULL __global pointer, which OpenCL allows (an absent mask).
inline void set_kernel_argument(cl_kernel kernel, cl_uint index, const Buffer& buffer) {
  const cl_mem memory = buffer.get();
  check(clSetKernelArg(kernel, index, sizeof(memory), &memory), "clSetKernelArg");
}

// Sets every argument of `kernel`, in declaration order. Scalars must have the exact type of the
// kernel's parameter (cl_int for int, cl_float for float).
template <typename... Arguments>
void set_kernel_arguments(cl_kernel kernel, const Arguments&... arguments) {
  cl_uint index = 0;
  (set_kernel_argument(kernel, index++, arguments), ...);
}

// The smallest multiple of `multiple` that is at least `count`.
constexpr std::size_t round_up(std::size_t count, std::size_t multiple) {
  return (count + multiple - 1) / multiple * multiple;
}

// Enqueues `kernel` over `global` work-items in work-groups of `local` (same rank; an empty
// `local` lets the driver choose) and returns its event, for profiling.
Event enqueue_kernel(cl_command_queue queue, cl_kernel kernel, std::span<const std::size_t> global,
                     std::span<const std::size_t> local);

// Waits for `events` and returns the sum of their execution times (CL_PROFILING_COMMAND_START to
// CL_PROFILING_COMMAND_END) in seconds; the queue must have profiling enabled.
double profiled_seconds(std::span<const Event> events);

}  // namespace gpu
