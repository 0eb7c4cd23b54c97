#include "embedded_files.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpu {

std::optional<std::string_view> find_embedded_file(std::span<const EmbeddedFile> files, std::string_view file_name) {
  const auto found = std::find_if(files.begin(), files.end(),
                                  [file_name](const EmbeddedFile& file) { return file.file_name == file_name; });
  if (found == files.end()) return std::nullopt;
  return found->text;
}

std::string_view embedded_kernel_source(std::string_view file_name) {
  const std::optional<std::string_view> text = find_embedded_file(embedded_kernel_sources(), file_name);
  if (!text) throw std::logic_error("no embedded OpenCL kernel file " + std::string(file_name));
  return *text;
}

}  // namespace gpu
