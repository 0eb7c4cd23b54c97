#pragma once

#include <cstddef>

#include "gpu/opencl_kernel.hpp"

namespace gpu {

// How many opencl_kernels() lists.
inline constexpr std::size_t kKernelCount = 5;

// Each defined in the source file of the same name.
OpenClKernel naive_sdpa_kernel();
OpenClKernel flash_sdpa_kernel();
OpenClKernel tiled_sdpa_kernel();
OpenClKernel cpu_sdpa_kernel();
OpenClKernel mma_sdpa_kernel();

}  // namespace gpu
