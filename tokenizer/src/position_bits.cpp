#include "position_bits.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace tokenizer {

PositionBits::~PositionBits() {
  if (mapped_ != nullptr) ::munmap(mapped_, mapped_bytes_);
}

void PositionBits::reset_mapped(std::size_t positions) {
  const std::size_t words = positions / 64 + 1;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t bytes = (words * sizeof(std::uint64_t) + page - 1) / page * page;
  if (bytes > mapped_bytes_) {
    if (mapped_ != nullptr) ::munmap(mapped_, mapped_bytes_);
    mapped_ = nullptr;
    mapped_bytes_ = 0;
    void* memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) throw std::bad_alloc();
    mapped_ = static_cast<std::uint64_t*>(memory);
    mapped_bytes_ = bytes;
  } else if (mapped_used_) {
    // Dropped pages of a private anonymous mapping read as zeros again.
    ::madvise(mapped_, mapped_bytes_, MADV_DONTNEED);
  }
  mapped_used_ = true;
  words_ = mapped_;
}

}  // namespace tokenizer
