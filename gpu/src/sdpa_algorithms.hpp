#pragma once

#include <cstddef>

#include "gpu/opencl_algorithm.hpp"

namespace gpu {

// How many opencl_algorithms() lists.
inline constexpr std::size_t kAlgorithmCount = 3;

// Each defined in the source file of the same name.
OpenClAlgorithm naive_sdpa_algorithm();
OpenClAlgorithm flash_sdpa_algorithm();
OpenClAlgorithm cpu_sdpa_algorithm();

}  // namespace gpu
