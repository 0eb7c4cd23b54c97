#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "gpu/opencl_device.hpp"
#include "gpu/opencl_handle.hpp"

namespace gpu {

// What launches need to know about a device beyond its identity.
struct DeviceLimits {
  std::size_t local_memory_bytes = 0;
  std::size_t max_work_group_size = 0;
  std::size_t max_allocation_bytes = 0;
  // CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT: 8 on an AVX2 CPU, often 1 on GPUs.
  std::size_t preferred_float_vector_width = 1;
  std::size_t compute_units = 1;
  // NVIDIA's compute capability as 10 * major + minor (90 on an H100) through the device's
  // cl_nv_device_attribute_query extension; 0 on every other device.
  unsigned nvidia_compute_capability = 0;
};

// Everything the SDPA calls on one device share: its context, one in-order command queue with
// profiling enabled, and the programs built so far.
class OpenClRuntime {
 public:
  explicit OpenClRuntime(DeviceInfo device);

  const DeviceInfo& device() const { return device_; }
  const DeviceLimits& limits() const { return limits_; }
  cl_context context() const { return context_.get(); }
  // Commands run in submission order; OpenCL lets several threads enqueue on it at once.
  cl_command_queue queue() const { return queue_.get(); }

  // The program made of the embedded kernel files `kernel_files` (names under gpu/kernels,
  // concatenated in order), built with `options`: compiled on the first request, then shared.
  // Thread-safe; the handle lives as long as the runtime.
  cl_program program(std::span<const std::string_view> kernel_files, std::string_view options);

 private:
  DeviceInfo device_;
  DeviceLimits limits_;
  Context context_;
  CommandQueue queue_;
  std::mutex programs_mutex_;
  // Keyed by the file names and options, joined; guarded by programs_mutex_.
  std::map<std::string, Program, std::less<>> programs_;
};

// The runtime of the device OPENCL_DEVICE chooses (select_device_from_environment), created on
// first use and kept for the rest of the process, so that each program is built once. Throws
// what device selection throws, and again on the next call.
OpenClRuntime& default_runtime();

// Whether any OpenCL device exists (list_devices() finds one).
bool opencl_device_available();

}  // namespace gpu
