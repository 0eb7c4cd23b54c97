#include "implementation_list.hpp"

#include "gpu/opencl_implementations.hpp"

namespace attention::cli {

const std::vector<Implementation>& sdpa_implementations() {
  static const std::vector<Implementation> all = [] {
    std::vector<Implementation> list(cpu_implementations().begin(), cpu_implementations().end());
    const std::span<const Implementation> opencl = gpu::opencl_implementations();
    list.insert(list.end(), opencl.begin(), opencl.end());
    return list;
  }();
  return all;
}

const Implementation* find_sdpa_implementation(std::string_view name) {
  for (const Implementation& implementation : sdpa_implementations())
    if (implementation.name == name) return &implementation;
  return nullptr;
}

}  // namespace attention::cli
