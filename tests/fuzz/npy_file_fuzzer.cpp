// Any bytes as a .npy file: read_npy refuses it with an NpyError naming the file, or returns
// as many values as its shape holds, which write_npy then writes and read_npy reads back
// unchanged, bit for bit.
#include <cstring>
#include <string>

#include "attention/npy_file.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  static const fuzz::ScratchFile file("fuzz.npy");
  const std::filesystem::path& path = file.write(std::string_view(reinterpret_cast<const char*>(bytes), size));
  attention::NpyArray array;
  try {
    array = attention::read_npy(path);
  } catch (const attention::NpyError& error) {
    fuzz::require(std::string(error.what()).starts_with(path.string()), "a refused file is named in the message");
    return 0;
  }
  std::size_t values = 1;
  for (const std::size_t dimension : array.shape) values *= dimension;
  fuzz::require(array.values.size() == values, "as many values as the shape holds");
  const std::filesystem::path copy = file.folder() / "copy.npy";
  attention::write_npy(copy, array.shape, array.values);
  const attention::NpyArray again = attention::read_npy(copy);
  fuzz::require(again.shape == array.shape, "the shape survives a write and a read");
  fuzz::require(values == 0 || std::memcmp(again.values.data(), array.values.data(), values * sizeof(float)) == 0,
                "the values survive a write and a read, bit for bit");
  return 0;
}
