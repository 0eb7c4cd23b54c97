#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "attention/attention_problem.hpp"
#include "gpu/device_attention_problem.hpp"
#include "gpu/opencl_handle.hpp"
#include "gpu/opencl_runtime.hpp"

namespace gpu {

// One OpenCL kernel made ready for one shape on one runtime: programs built, kernels created,
// workspace allocated. One object must not be used by two threads at once (kernel arguments are
// per kernel object).
class PreparedSdpa {
 public:
  virtual ~PreparedSdpa() = default;

  // Enqueues one SDPA call on the runtime's queue, reading problem's inputs and writing problem.out
  // (problem.shape must be the prepared shape), and returns the events of its kernels in order.
  // Nothing waits: the output is complete once the last event is.
  virtual std::vector<Event> enqueue(const DeviceAttentionProblem& problem) = 0;
};

// One way of computing SDPA on an OpenCL device: its kernels, prepared for a shape.
struct OpenClKernel {
  std::string_view name;
  std::string_view description;
  // Whether the kernel can run on the runtime's device (opencl_mma needs NVIDIA's tensor cores).
  bool (*runs_on)(const OpenClRuntime& runtime);
  // Device memory a call allocates besides the copies of its inputs and output.
  std::size_t (*workspace_bytes)(const attention::AttentionShape& shape);
  std::unique_ptr<PreparedSdpa> (*prepare)(OpenClRuntime& runtime, const attention::AttentionShape& shape);
};

// Any device: what runs_on is for the kernels written in portable OpenCL C.
bool runs_on_any_device(const OpenClRuntime& runtime);

// The registry of OpenCL SDPA kernels: opencl_naive, opencl_flash, opencl_tiled,
// opencl_cpu, opencl_mma. The same list as
// attention::Implementation entries, which run on the host's data: opencl_implementations().
std::span<const OpenClKernel> opencl_kernels();

}  // namespace gpu
