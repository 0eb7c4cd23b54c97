#pragma once

#include <string_view>
#include <vector>

#include "attention/implementation_registry.hpp"

namespace attention::cli {

// What `sdpa --impl` can name: the CPU registry, then the OpenCL kernels of the gpu library
// (supported when an OpenCL device exists).
const std::vector<Implementation>& sdpa_implementations();
// nullptr if none has this name.
const Implementation* find_sdpa_implementation(std::string_view name);

}  // namespace attention::cli
