// HugePageAllocator: allocations of a huge page or more start on a huge-page boundary (so the
// kernel can back them with transparent huge pages), smaller ones come from std::allocator, and
// both hold their values through a vector's growth.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tokenizer/huge_page_allocator.hpp"

namespace tokenizer {
namespace {

using Allocator = HugePageAllocator<std::uint64_t>;
constexpr std::size_t kHugePageValues = Allocator::kHugePage / sizeof(std::uint64_t);

TEST(HugePageAllocator, LargeAllocationsStartOnAHugePage) {
  Allocator allocator;
  for (const std::size_t n : {kHugePageValues, kHugePageValues + 1, 3 * kHugePageValues}) {
    std::uint64_t* p = allocator.allocate(n);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % Allocator::kHugePage, 0u) << n << " values";
    p[0] = 1;
    p[n - 1] = 2;  // the whole range is usable
    allocator.deallocate(p, n);
  }
}

TEST(HugePageAllocator, VectorKeepsItsValuesAcrossTheHugePageThreshold) {
  std::vector<std::uint64_t, Allocator> values;
  for (std::uint64_t i = 0; i < 2 * kHugePageValues; ++i) values.push_back(i * 7);
  for (std::uint64_t i = 0; i < values.size(); ++i) ASSERT_EQ(values[i], i * 7);
  values.resize(10);
  values.shrink_to_fit();
  EXPECT_EQ(values.back(), 63u);
}

TEST(HugePageAllocator, RefusesSizesThatOverflow) {
  Allocator allocator;
  EXPECT_THROW(static_cast<void>(allocator.allocate(static_cast<std::size_t>(-1) / 4)), std::bad_array_new_length);
}

}  // namespace
}  // namespace tokenizer
