#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "byte_buffer.hpp"

namespace tokenizer::cli {

// The whole content of the file at `path` ("-": standard input), read as raw bytes into one
// buffer, sized up front when the file's size is known. Throws std::runtime_error naming the
// file.
ByteBuffer read_input(const std::string& path);

// Writes raw bytes; throws std::runtime_error on a write error.
void write_bytes(std::FILE* out, std::string_view bytes);

// Flushes `out`; throws std::runtime_error if this or an earlier write failed.
void finish_output(std::FILE* out);

// Collects small writes in a fixed buffer and passes them on in large chunks, so that output
// of any length needs only this much memory.
class ChunkedWriter {
 public:
  static constexpr std::size_t kCapacity = 1 << 16;

  explicit ChunkedWriter(std::FILE* out) : out_(out) {}
  ChunkedWriter(const ChunkedWriter&) = delete;
  ChunkedWriter& operator=(const ChunkedWriter&) = delete;

  // Room for at least `size` (<= kCapacity) more bytes, flushing first if needed; the caller
  // writes there, then calls commit().
  char* reserve(std::size_t size) {
    if (kCapacity - used_ < size) flush();
    return buffer_ + used_;
  }
  void commit(std::size_t size) { used_ += size; }
  void flush();

 private:
  std::FILE* out_;
  std::size_t used_ = 0;
  char buffer_[kCapacity];
};

}  // namespace tokenizer::cli
