#pragma once

// What the fuzz targets share: a check that reports and aborts (libFuzzer then saves the input
// as a reproducer), the split of an input into a leading control byte and the rest, and a scratch
// file for the loaders that read paths.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace fuzz {

// Aborts, naming the broken property, unless `holds`.
inline void require(bool holds, const char* property) {
  if (holds) return;
  std::fprintf(stderr, "fuzz property broken: %s\n", property);
  std::abort();
}

// The first byte of an input steers the target (which encoding, which format...); the rest is
// the data. An empty input has control 0 and no data.
struct SteeredInput {
  std::uint8_t control = 0;
  std::string_view data;
};

inline SteeredInput steer(const std::uint8_t* bytes, std::size_t size) {
  if (size == 0) return {};
  return {bytes[0], std::string_view(reinterpret_cast<const char*>(bytes) + 1, size - 1)};
}

// A file of this process's own in the temporary folder, rewritten for each input, removed with
// its folder at exit: nothing is written anywhere else.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name)
      : folder_(std::filesystem::temp_directory_path() / ("tokbench-fuzz-" + std::to_string(::getpid()))),
        path_(folder_ / name) {
    std::filesystem::create_directories(folder_);
  }
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::filesystem::path& write(std::string_view bytes) const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    require(static_cast<bool>(out), "the scratch file can be written");
    return path_;
  }
  const std::filesystem::path& folder() const { return folder_; }

 private:
  std::filesystem::path folder_;
  std::filesystem::path path_;
};

}  // namespace fuzz
