#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace tokenizer {

// A std::allocator for the large lookup tables of the encoders. An allocation of at least one
// huge page (2 MiB on x86-64) is aligned to one and advised to the kernel as huge-page memory
// (MADV_HUGEPAGE), so transparent huge pages back it where THP is set to `madvise`, as on Debian
// and most distributions. A probe into a table of several MiB then misses the TLB far less:
// cl100k's main rank table is 4 MiB, o200k's 8 MiB, and every whole-piece lookup of long text
// lands on a random line of it. Smaller allocations, and systems without THP, get plain memory.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    // No object may exceed PTRDIFF_MAX bytes, rounding up to a huge page included.
    if (n > (static_cast<std::size_t>(PTRDIFF_MAX) - kHugePage) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>().allocate(n);
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
    madvise(p, rounded, MADV_HUGEPAGE);  // advice only: ignored where THP is off or unsupported
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) std::allocator<T>().deallocate(p, n);
    else std::free(p);
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }
};

}  // namespace tokenizer
