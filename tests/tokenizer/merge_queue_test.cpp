// MergeQueue pops exactly what a binary min-heap of (rank, offset) pops, under any interleaving
// of pushes and pops: lower ranks pushed while a rank drains, pushes of the draining rank itself,
// and offsets pushed out of order, which BPE itself makes rare.
#include <gtest/gtest.h>

#include <functional>
#include <queue>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "merge_queue.hpp"

namespace tokenizer {
namespace {

using Key = std::pair<Rank, std::uint32_t>;

void expect_same_order(std::uint64_t seed, Rank rank_range, std::uint32_t offset_range, int push_percent) {
  std::mt19937_64 rng(seed);
  MergeQueue queue;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> reference;
  std::set<Key> present;  // BPE never queues the same (rank, offset) twice at once
  for (int step = 0; step < 20000; ++step) {
    if (static_cast<int>(rng() % 100) < push_percent || reference.empty()) {
      const Key key{static_cast<Rank>(rng() % rank_range), static_cast<std::uint32_t>(rng() % offset_range)};
      if (!present.insert(key).second) continue;
      queue.push(key.first, key.second);
      reference.push(key);
    } else {
      Key got;
      ASSERT_TRUE(queue.pop(got.first, got.second)) << "step " << step;
      ASSERT_EQ(got, reference.top()) << "seed " << seed << " step " << step;
      present.erase(got);
      reference.pop();
    }
  }
  while (!reference.empty()) {
    Key got;
    ASSERT_TRUE(queue.pop(got.first, got.second));
    ASSERT_EQ(got, reference.top());
    reference.pop();
  }
  Key none;
  EXPECT_FALSE(queue.pop(none.first, none.second));
  EXPECT_TRUE(queue.empty());
}

TEST(MergeQueue, PopsInAscendingRankThenOffset) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    expect_same_order(seed, 8, 1000, 55);    // few ranks: long lists, frequent preemption
    expect_same_order(seed, 5000, 100, 60);  // many ranks: the rank map grows
    expect_same_order(seed, 50, 50, 40);     // pops outrun pushes: drains and refills
  }
}

TEST(MergeQueue, ClearForgetsEverythingAndCanBeReused) {
  MergeQueue queue;
  for (std::uint32_t i = 0; i < 100; ++i) queue.push(i % 7, 100 - i);
  Rank rank;
  std::uint32_t offset;
  ASSERT_TRUE(queue.pop(rank, offset));
  EXPECT_EQ(rank, 0u);
  EXPECT_EQ(offset, 2u);  // rank 0 holds offsets 100, 93, ..., 2: the leftmost first
  queue.clear();
  EXPECT_TRUE(queue.empty());
  EXPECT_FALSE(queue.pop(rank, offset));
  queue.push(5, 1);
  ASSERT_TRUE(queue.pop(rank, offset));
  EXPECT_EQ(rank, 5u);
  EXPECT_EQ(offset, 1u);
}

}  // namespace
}  // namespace tokenizer
