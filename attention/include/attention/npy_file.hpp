#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace attention {

// A float32 array in C (row-major) order, as a NumPy .npy file holds it. The number of values is
// the product of `shape`: 1 for a 0-d array (shape empty), 0 when any dimension is 0.
struct NpyArray {
  std::vector<std::size_t> shape;
  std::vector<float> values;
};

// A .npy file that cannot be read or written; the message starts with the file's path.
class NpyError : public std::runtime_error {
 public:
  NpyError(const std::filesystem::path& path, const std::string& fault);
};

// A shape as Python writes a tuple: "()", "(5,)", "(2, 3)".
std::string shape_to_string(std::span<const std::size_t> shape);

// Reads a .npy file of format version 1.0, 2.0 or 3.0 holding little-endian float32 ('<f4') in
// C order; any rank, including 0-d and dimensions of 0. Anything else (another dtype, big-endian
// float32 included, Fortran order, a malformed header, data shorter or longer than the shape
// needs, a shape whose size overflows) throws NpyError naming the fault.
NpyArray read_npy(const std::filesystem::path& path);

// Writes `values` (C order, as many as the product of `shape`, else std::invalid_argument) as a
// format 1.0 .npy file of dtype '<f4', or 2.0 when the header is too long for 1.0. The data go to
// a temporary file beside `path` that then replaces it, so that `path` is either written whole or
// left as it was. Throws NpyError if the file cannot be written.
void write_npy(const std::filesystem::path& path, std::span<const std::size_t> shape, std::span<const float> values);

// Throws the NpyError that write_npy would throw, and writes nothing, where `path` cannot take a
// file at all: it is a folder, or its folder is missing or not writable. A caller about to
// compute what it will write checks first, so that a mistyped path fails at once, not after the
// work. (A full disk or a folder that changes meanwhile still fails only in write_npy.)
void check_npy_destination(const std::filesystem::path& path);

}  // namespace attention
