#pragma once

#include <CL/cl.h>

#include <span>
#include <string_view>

#include "gpu/opencl_handle.hpp"

namespace gpu {

// Compiles `sources` (one program, the strings concatenated in order) for `device` of `context`.
// Throws ProgramBuildError carrying the build log when the compiler rejects them (`name` says
// which program it was), OpenClError for any other failure.
Program build_program(cl_context context, cl_device_id device, std::string_view name,
                      std::span<const std::string_view> sources, std::string_view options);

// The kernel `name` of a built program; OpenClError (CL_INVALID_KERNEL_NAME...) if it has none.
Kernel create_kernel(cl_program program, const char* name);

}  // namespace gpu
