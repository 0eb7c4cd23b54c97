#pragma once

#include <span>

#include "attention/implementation_registry.hpp"

namespace gpu {

// The OpenCL kernels as attention::Implementation entries, in opencl_kernels() order: each
// run() validates, uploads the inputs to default_runtime()'s device, computes and downloads the
// output before returning. is_supported: an OpenCL device exists (OPENCL_DEVICE may still name
// none, which run() then reports) and, for a kernel that needs more than OpenCL (opencl_mma), the
// chosen device has it.
std::span<const attention::Implementation> opencl_implementations();

// The one expected to be fastest on default_runtime()'s device: opencl_cpu on a CPU device,
// opencl_tiled elsewhere.
const attention::Implementation& preferred_opencl_implementation();

}  // namespace gpu
