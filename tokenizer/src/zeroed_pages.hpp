#pragma once

#include <cstddef>

namespace tokenizer {

// Memory straight from the kernel: zero until written, aligned to and advised as huge pages
// (MADV_HUGEPAGE, as HugePageAllocator does). A table that starts empty needs no clearing of its
// own, so making it costs no pass over its megabytes; each page is cleared by the kernel when it is
// first touched, and a page never touched costs nothing.
class ZeroedPages {
 public:
  // Throws std::bad_alloc when the kernel refuses.
  explicit ZeroedPages(std::size_t bytes);
  ~ZeroedPages();
  ZeroedPages(const ZeroedPages&) = delete;
  ZeroedPages& operator=(const ZeroedPages&) = delete;

  void* data() const { return data_; }

 private:
  void* mapping_;
  std::size_t mapping_bytes_;
  void* data_;
};

}  // namespace tokenizer
