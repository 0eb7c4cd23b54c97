#include <array>

#include "opencl_kernel_entries.hpp"

namespace gpu {

bool runs_on_any_device(const OpenClRuntime&) { return true; }

std::span<const OpenClKernel> opencl_kernels() {
  static const std::array<OpenClKernel, kKernelCount> kernels{
      naive_sdpa_kernel(), flash_sdpa_kernel(), tiled_sdpa_kernel(), cpu_sdpa_kernel(), mma_sdpa_kernel()};
  return kernels;
}

}  // namespace gpu
