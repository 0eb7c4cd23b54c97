// RecentWholePieces answers only for the exact piece it stored (head and size), and a piece that
// lands on a stored one's slot replaces it: the older one then misses, never gets another's rank.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "recent_whole_pieces.hpp"

namespace tokenizer {
namespace {

std::uint64_t head_of(const std::string& piece) {
  std::uint64_t head = 0;
  std::memcpy(&head, piece.data(), piece.size());
  return head;
}

TEST(RecentWholePieces, FindsOnlyTheStoredHeadAndSize) {
  RecentWholePieces recent;
  const std::string piece = " the";
  EXPECT_EQ(recent.find(head_of(piece), piece.size()), kNoRank);
  recent.store(head_of(piece), piece.size(), 279);
  EXPECT_EQ(recent.find(head_of(piece), piece.size()), 279u);
  // The same bytes and a NUL after them: the same head, another size.
  const std::string longer(" the\0", 5);
  EXPECT_EQ(head_of(longer), head_of(piece));
  EXPECT_EQ(recent.find(head_of(longer), longer.size()), kNoRank);
  // An empty slot holds size 0, which no piece has: not even a piece of NUL bytes matches it.
  EXPECT_EQ(recent.find(0, 1), kNoRank);
  EXPECT_EQ(recent.find(0, RecentWholePieces::kMaxPiece), kNoRank);
}

TEST(RecentWholePieces, APieceOnTheSameSlotReplacesTheOlderOne) {
  RecentWholePieces recent;
  // Pieces "p0", "p1", ... until one lands on the slot of "p0" (found by its replacing "p0").
  const std::string first = "p0";
  recent.store(head_of(first), first.size(), 1);
  for (Rank n = 1; n < 1'000'000; ++n) {
    const std::string other = "p" + std::to_string(n);
    recent.store(head_of(other), other.size(), n + 1);
    ASSERT_EQ(recent.find(head_of(other), other.size()), n + 1);
    const Rank old = recent.find(head_of(first), first.size());
    if (old == kNoRank) return;  // replaced, and a miss rather than the newer piece's rank
    ASSERT_EQ(old, 1u) << other;
  }
  FAIL() << "no piece landed on the slot of " << first;
}

}  // namespace
}  // namespace tokenizer
