#include "gpu/opencl_implementations.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <utility>

#include "gpu/device_attention_problem.hpp"
#include "gpu/mma_sdpa.hpp"
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

// Kernels that need more than OpenCL ask the device, which means opening it.
template <std::size_t Index>
bool supported() {
  const OpenClKernel& kernel = opencl_kernels()[Index];
  if (!opencl_device_available()) return false;
  if (kernel.runs_on == runs_on_any_device) return true;
  try {
    return kernel.runs_on(default_runtime());
  } catch (const std::exception&) {
    return false;
  }
}

template <std::size_t Index>
attention::Implementation implementation() {
  const OpenClKernel& kernel = opencl_kernels()[Index];
  return attention::Implementation{kernel.name, kernel.description, supported<Index>, kernel.workspace_bytes,
                                   run<Index>};
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
  const OpenClRuntime& runtime = default_runtime();
  const bool cpu_device = (runtime.device().type & CL_DEVICE_TYPE_CPU) != 0;
  const std::string_view name = cpu_device                                ? "opencl_cpu"
                                : has_tf32_tensor_cores(runtime.limits()) ? "opencl_mma"
                                                                          : "opencl_tiled";
  const std::span<const attention::Implementation> all = opencl_implementations();
  return *std::find_if(all.begin(), all.end(),
                       [name](const attention::Implementation& entry) { return entry.name == name; });
}

}  // namespace gpu
