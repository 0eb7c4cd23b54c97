#include <array>

#include "sdpa_algorithms.hpp"

namespace gpu {

std::span<const OpenClAlgorithm> opencl_algorithms() {
  static const std::array<OpenClAlgorithm, kAlgorithmCount> algorithms{
      naive_sdpa_algorithm(), flash_sdpa_algorithm(), cpu_sdpa_algorithm()};
  return algorithms;
}

}  // namespace gpu
