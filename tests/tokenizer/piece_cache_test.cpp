// PieceCache answers only for the exact bytes it stored: never for another piece that lands in
// the same slot, a prefix, or a piece too long to hold.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "piece_cache.hpp"

namespace tokenizer {
namespace {

// A letter followed by a number, e.g. w42.
std::string numbered(char letter, std::size_t n) {
  std::string s(1, letter);
  s += std::to_string(n);
  return s;
}

TEST(PieceCache, HitsOnlyTheStoredBytes) {
  PieceCache cache;
  std::vector<Rank> out;
  EXPECT_FALSE(cache.lookup("hello", out));  // nothing allocated yet
  const Rank ids[] = {1, 2, 3};
  cache.store("hello", ids, 3);
  ASSERT_TRUE(cache.lookup("hello", out));
  EXPECT_EQ(out, (std::vector<Rank>{1, 2, 3}));
  out.clear();
  EXPECT_FALSE(cache.lookup("hell", out));
  EXPECT_FALSE(cache.lookup("hellp", out));
  EXPECT_FALSE(cache.lookup(std::string("hello\0", 6), out));
  EXPECT_TRUE(out.empty());
}

// A piece is held as its first 8 bytes and the rest, so pieces that differ only beyond their
// eighth byte, or in trailing zero bytes, must stay apart at every size up to kMaxPiece.
TEST(PieceCache, TellsApartPiecesThatDifferOnlyInTheirLastBytes) {
  PieceCache cache;
  const std::string stem = "abcdefghijklmnop";
  static_assert(PieceCache::kMaxPiece == 16);
  for (std::size_t size = 1; size <= PieceCache::kMaxPiece; ++size) {
    const std::string piece = stem.substr(0, size);
    const Rank id = static_cast<Rank>(size);
    cache.store(piece, &id, 1);
    std::vector<Rank> out;
    ASSERT_TRUE(cache.lookup(piece, out)) << piece;
    ASSERT_EQ(out, std::vector<Rank>{id});
    std::string changed = piece;
    changed.back() = 'Z';
    EXPECT_FALSE(cache.lookup(changed, out)) << changed;
    if (size < PieceCache::kMaxPiece) {
      EXPECT_FALSE(cache.lookup(piece + std::string(1, '\0'), out)) << size;
    }
    EXPECT_EQ(out.size(), 1u);
  }
}

TEST(PieceCache, CollidingPiecesEvictEachOtherButNeverAlias) {
  // Store many distinct pieces; each lookup must give its own ids or miss, never another's.
  PieceCache cache;
  std::map<std::string, Rank> stored;
  for (Rank i = 0; i < PieceCache::kEntries * 3 / 2; ++i) {  // more than the slots, less than the probation
    const std::string piece = numbered('w', i * 7919);
    cache.store(piece, &i, 1);
    stored[piece] = i;
  }
  std::size_t hits = 0;
  for (const auto& [piece, id] : stored) {
    std::vector<Rank> out;
    if (!cache.lookup(piece, out)) continue;
    ++hits;
    ASSERT_EQ(out, std::vector<Rank>{id}) << piece;
  }
  EXPECT_GT(hits, 0u);
  EXPECT_LT(hits, stored.size());  // more pieces than slots: some were evicted
}

TEST(PieceCache, SwitchesItselfOffWhenPiecesDoNotRecur) {
  PieceCache cache;
  std::vector<Rank> out;
  const Rank id = 1;
  // Pieces that never recur: after the probation, the cache stops answering at all.
  for (std::size_t i = 0; i < PieceCache::kProbation; ++i) cache.store(numbered('p', i), &id, 1);
  cache.store("again", &id, 1);
  EXPECT_FALSE(cache.lookup("again", out));
  // Pieces that recur keep it on.
  PieceCache busy;
  for (std::size_t i = 0; i < 2 * PieceCache::kProbation; ++i) {
    const std::string piece = numbered('w', i % 8);
    if (!busy.lookup(piece, out)) busy.store(piece, &id, 1);
  }
  EXPECT_TRUE(busy.lookup("w3", out));
}

TEST(PieceCache, TooLongPiecesAndResultsAreNotStored) {
  PieceCache cache;
  std::vector<Rank> out;
  const std::vector<Rank> many(PieceCache::kMaxIds + 1, 7);
  const std::string long_piece(PieceCache::kMaxPiece + 1, 'x');
  cache.store(long_piece, many.data(), 1);
  cache.store("short", many.data(), many.size());
  EXPECT_FALSE(cache.lookup(long_piece, out));
  EXPECT_FALSE(cache.lookup("short", out));
  const std::string longest(PieceCache::kMaxPiece, 'y');
  cache.store(longest, many.data(), PieceCache::kMaxIds);
  ASSERT_TRUE(cache.lookup(longest, out));
  EXPECT_EQ(out.size(), PieceCache::kMaxIds);
}

}  // namespace
}  // namespace tokenizer
