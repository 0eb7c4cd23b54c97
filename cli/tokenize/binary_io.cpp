#include "binary_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace tokenizer::cli {

namespace {

std::runtime_error file_error(const std::string& path, const char* what) {
  const std::string name = path == "-" ? "standard input" : path;
  return std::runtime_error(name + ": " + what + ": " + std::strerror(errno));
}

// Closes the descriptor it was given, unless it is standard input.
class InputFile {
 public:
  explicit InputFile(const std::string& path) : fd_(path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY)) {
    if (fd_ < 0) throw file_error(path, "cannot open");
  }
  ~InputFile() {
    if (fd_ != STDIN_FILENO) ::close(fd_);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

ByteBuffer read_input(const std::string& path) {
  const InputFile file(path);
  // A regular file's size is known: the buffer gets exactly that, plus one byte so that the
  // read that meets the end of the file needs no growth. Pipes grow the buffer geometrically.
  struct stat info {};
  std::size_t capacity = 1 << 16;
  if (::fstat(file.fd(), &info) == 0 && S_ISREG(info.st_mode)) capacity = static_cast<std::size_t>(info.st_size) + 1;
  ByteBuffer buffer;
  buffer.reserve(capacity);
  for (;;) {
    if (buffer.size() == buffer.capacity()) buffer.reserve(buffer.capacity() * 2);
    const ssize_t n = ::read(file.fd(), buffer.data() + buffer.size(), buffer.capacity() - buffer.size());
    if (n == 0) return buffer;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw file_error(path, "read error");
    }
    buffer.set_size(buffer.size() + static_cast<std::size_t>(n));
  }
}

void write_bytes(std::FILE* out, std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size())
    throw std::runtime_error(std::string("write error: ") + std::strerror(errno));
}

void finish_output(std::FILE* out) {
  if (std::fflush(out) != 0 || std::ferror(out)) throw std::runtime_error(std::string("write error: ") + std::strerror(errno));
}

void ChunkedWriter::flush() {
  write_bytes(out_, std::string_view(buffer_, used_));
  used_ = 0;
}

}  // namespace tokenizer::cli
