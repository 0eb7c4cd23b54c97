// PieceCache answers only for the exact bytes it stored: never for another piece that lands in
// the same line, a prefix, or a piece too long to hold; it stays within its memory; and readers
// racing with writers get either a whole entry or a miss.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
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

constexpr std::size_t kTestBytes = 64 * 1024;

TEST(PieceCache, HitsOnlyTheStoredBytes) {
  PieceCache cache(kTestBytes);
  std::vector<Rank> out;
  EXPECT_FALSE(cache.lookup("hello", out));
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
  PieceCache cache(kTestBytes);
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
  // Store more pieces than there are entries; each lookup must give its own ids or miss.
  PieceCache cache(kTestBytes);
  const std::size_t entries = cache.memory_bytes() / PieceCache::kEntryBytes;
  std::map<std::string, Rank> stored;
  for (Rank i = 0; i < entries * 3 / 2; ++i) {
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
  EXPECT_LT(hits, stored.size());  // more pieces than entries: some were evicted
}

TEST(PieceCache, HoldsAPowerOfTwoOfEntriesWithinItsBytes) {
  for (const std::size_t bytes : {std::size_t{64}, std::size_t{127}, std::size_t{128}, std::size_t{1000},
                                  kTestBytes, kTestBytes + 1, kTestBytes * 2 - 1, std::size_t{4} << 20}) {
    const PieceCache cache(bytes);
    const std::size_t entries = cache.memory_bytes() / PieceCache::kEntryBytes;
    EXPECT_LE(cache.memory_bytes(), bytes) << bytes;
    EXPECT_GT(cache.memory_bytes() * 2, bytes) << bytes;  // the largest power of two that fits
    EXPECT_EQ(entries & (entries - 1), 0u) << bytes;
  }
}

// Ids are packed kIdBits apiece: the largest that fits comes back whole, in order, and a larger
// one keeps its piece out.
TEST(PieceCache, PacksIdsUpToTheirWidthAndRefusesWiderOnes) {
  PieceCache cache(kTestBytes);
  constexpr Rank kLargest = (Rank{1} << PieceCache::kIdBits) - 1;
  const Rank ids[] = {kLargest, 0, kLargest - 1};
  cache.store("wide", ids, 3);
  std::vector<Rank> out;
  ASSERT_TRUE(cache.lookup("wide", out));
  EXPECT_EQ(out, (std::vector<Rank>{kLargest, 0, kLargest - 1}));
  const Rank too_wide[] = {5, kLargest + 1};
  cache.store("wider", too_wide, 2);
  EXPECT_FALSE(cache.lookup("wider", out));
}

TEST(PieceCache, TooLongPiecesAndResultsAreNotStored) {
  PieceCache cache(kTestBytes);
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

// Threads store and look up pieces of a small set in a cache of four entries, so that writers keep
// replacing entries that readers are copying. A piece's ids are a function of it (its number,
// repeated 1 to kMaxIds times), so a torn read, ids of one piece under
// the key of another or a mix of two writes, shows as ids that are not that function.
TEST(PieceCache, ReadersRacingWritersGetWholeEntriesOrMisses) {
  PieceCache cache(2 * PieceCache::kLineBytes);  // four entries
  constexpr std::size_t kPieces = 64;
  const auto ids_of = [](std::size_t n) { return std::vector<Rank>(n % PieceCache::kMaxIds + 1, static_cast<Rank>(n)); };
  std::atomic<std::size_t> hits{0}, wrong{0};
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<Rank> out;
      for (std::size_t i = 0; i < 200000; ++i) {
        const std::size_t n = (i * 31 + t * 17) % kPieces;
        const std::string piece = numbered('p', n);
        out.clear();
        if (cache.lookup(piece, out)) {
          ++hits;
          if (out != ids_of(n)) ++wrong;
        } else {
          const std::vector<Rank> ids = ids_of(n);
          cache.store(piece, ids.data(), ids.size());
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(hits.load(), 0u);
}

}  // namespace
}  // namespace tokenizer
