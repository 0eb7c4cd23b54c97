#include "tracking_allocator.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_allocated{0};

void* allocate(std::size_t bytes, std::size_t alignment) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocated.fetch_add(bytes, std::memory_order_relaxed);
  // aligned_alloc wants a size that is a multiple of the alignment.
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0xFF, rounded);
  return p;
}

}  // namespace

void* operator new(std::size_t bytes) { return allocate(bytes, __STDCPP_DEFAULT_NEW_ALIGNMENT__); }
void* operator new(std::size_t bytes, std::align_val_t alignment) {
  return allocate(bytes, static_cast<std::size_t>(alignment));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace attention::test {

void start_counting() {
  g_allocated = 0;
  g_counting = true;
}

std::size_t bytes_counted() {
  g_counting = false;
  return g_allocated;
}

}  // namespace attention::test
