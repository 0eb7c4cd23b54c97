#include "gpu/opencl_implementations.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "gpu/device_attention_problem.hpp"
#include "gpu/opencl_kernel.hpp"
#include "gpu/opencl_runtime.hpp"
#include "opencl_kernel_entries.hpp"

namespace gpu {

namespace {

void run_kernel(const OpenClKernel& kernel, const attention::AttentionProblem& problem) {
  // Invalid arguments are reported before any OpenCL work, even on a machine without a device.
  attention::validate(problem);
  OpenClRuntime& runtime = default_runtime();
  const DeviceAttentionProblem device_problem = upload_problem(runtime, problem);
  const std::unique_ptr<PreparedSdpa> prepared = kernel.prepare(runtime, problem.shape);
  prepared->enqueue(device_problem);
  download_output(runtime, device_problem, problem.out);
}

// Implementation holds plain function pointers: one instantiation per registry index.
template <std::size_t Index>
void run(const attention::AttentionProblem& problem) {
  run_kernel(opencl_kernels()[Index], problem);
}

template <std::size_t Index>
attention::Implementation implementation() {
  const OpenClKernel& kernel = opencl_kernels()[Index];
  return attention::Implementation{kernel.name, kernel.description, opencl_device_available,
                                   kernel.workspace_bytes, run<Index>};
}

template <std::size_t... Indices>
std::array<attention::Implementation, sizeof...(Indices)> implementations(std::index_sequence<Indices...>) {
  return {implementation<Indices>()...};
}

}  // namespace

std::span<const attention::Implementation> opencl_implementations() {
  static const auto all = implementations(std::make_index_sequence<kKernelCount>());
  return all;
}

const attention::Implementation& preferred_opencl_implementation() {
  const bool cpu_device = (default_runtime().device().type & CL_DEVICE_TYPE_CPU) != 0;
  const std::string_view name = cpu_device ? "opencl_cpu" : "opencl_tiled";
  const std::span<const attention::Implementation> all = opencl_implementations();
  return *std::find_if(all.begin(), all.end(),
                       [name](const attention::Implementation& entry) { return entry.name == name; });
}

}  // namespace gpu
