#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace gpu {

// One file embedded in the library at build time (gpu/cmake/embed_files.cmake).
struct EmbeddedFile {
  std::string_view file_name;  // "flash_sdpa.cl"
  std::string_view text;
};

// The files of gpu/kernels and of gpu/tuning, each set in file-name order; each defined by a
// source file that gpu/cmake/embed_files.cmake generates.
std::span<const EmbeddedFile> embedded_kernel_sources();
std::span<const EmbeddedFile> embedded_tuning_files();

// The file of that name among `files`, if there is one.
std::optional<std::string_view> find_embedded_file(std::span<const EmbeddedFile> files, std::string_view file_name);

// The embedded kernel file of that name; std::logic_error if none (a typo in the library).
std::string_view embedded_kernel_source(std::string_view file_name);

}  // namespace gpu
