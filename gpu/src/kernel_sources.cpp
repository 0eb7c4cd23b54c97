#include "kernel_sources.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpu {

std::string_view embedded_kernel_source(std::string_view file_name) {
  const std::span<const KernelSource> sources = embedded_kernel_sources();
  const auto found = std::find_if(sources.begin(), sources.end(),
                                  [file_name](const KernelSource& source) { return source.file_name == file_name; });
  if (found == sources.end()) throw std::logic_error("no embedded OpenCL kernel file " + std::string(file_name));
  return found->text;
}

}  // namespace gpu
