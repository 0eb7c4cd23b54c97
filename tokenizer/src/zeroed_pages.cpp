#include "zeroed_pages.hpp"

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>

#include "tokenizer/huge_page_allocator.hpp"

namespace tokenizer {

namespace {

constexpr std::size_t kHugePage = HugePageAllocator<std::byte>::kHugePage;

}  // namespace

// A huge page extra, so that the data can start at a huge-page boundary: the kernel backs only
// whole aligned 2 MiB ranges with huge pages.
ZeroedPages::ZeroedPages(std::size_t bytes)
    : mapping_(mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)),
      mapping_bytes_(bytes + kHugePage) {
  if (mapping_ == MAP_FAILED) throw std::bad_alloc();
  const auto at = reinterpret_cast<std::uintptr_t>(mapping_);
  data_ = reinterpret_cast<void*>((at + kHugePage - 1) / kHugePage * kHugePage);
  madvise(data_, bytes, MADV_HUGEPAGE);  // advice only: ignored where THP is off or unsupported
}

ZeroedPages::~ZeroedPages() { munmap(mapping_, mapping_bytes_); }

}  // namespace tokenizer
