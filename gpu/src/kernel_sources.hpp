#pragma once

#include <span>
#include <string_view>

namespace gpu {

// One file of gpu/kernels, embedded in the library at build time.
struct KernelSource {
  std::string_view file_name;  // "flash_sdpa.cl"
  std::string_view text;
};

// Every embedded file, in file-name order; defined by the source file that
// gpu/cmake/embed_kernel_sources.cmake generates.
std::span<const KernelSource> embedded_kernel_sources();

// The embedded file of that name; std::logic_error if none (a typo in the library).
std::string_view embedded_kernel_source(std::string_view file_name);

}  // namespace gpu
