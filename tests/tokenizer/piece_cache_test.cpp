// Each table of PieceCache answers only for the exact bytes it stored: never for another piece
// that lands in the same line, a prefix, or a piece too long to hold; it stays within its
// memory; and readers racing with writers get either a whole entry or a miss.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "piece_cache.hpp"

namespace tokenizer {
namespace {

// A letter followed by a number, padded with the letter to at least `size` bytes.
std::string numbered(char letter, std::size_t n, std::size_t size = 0) {
  std::string s(1, letter);
  s += std::to_string(n);
  if (s.size() < size) s.append(size - s.size(), letter);
  return s;
}

constexpr std::size_t kTestBytes = 64 * 1024;

template <class Table>
class PieceTableTest : public ::testing::Test {
 protected:
  // The shortest pieces the table holds in PieceCache: the long table takes those beyond 16 bytes.
  static constexpr std::size_t kShortest = Table::kMaxPiece == 16 ? 1 : 17;
};
using Tables = ::testing::Types<PieceCache::ShortTable, PieceCache::LongTable>;
TYPED_TEST_SUITE(PieceTableTest, Tables);

TYPED_TEST(PieceTableTest, HitsOnlyTheStoredBytes) {
  TypeParam table(kTestBytes);
  const std::string piece = numbered('h', 1, this->kShortest);
  std::vector<Rank> out;
  EXPECT_FALSE(table.lookup(piece, out));
  const Rank ids[] = {1, 2, 3};
  table.store(piece, ids, 3);
  ASSERT_TRUE(table.lookup(piece, out));
  EXPECT_EQ(out, (std::vector<Rank>{1, 2, 3}));
  out.clear();
  EXPECT_FALSE(table.lookup(piece.substr(0, piece.size() - 1) + "x", out));
  EXPECT_FALSE(table.lookup(numbered('h', 2, this->kShortest), out));
  EXPECT_TRUE(out.empty());
}

// A piece is held as words of 8 bytes, zero-padded, so pieces that differ only in their last
// byte, or in trailing zero bytes, must stay apart at every size the table holds.
TYPED_TEST(PieceTableTest, TellsApartPiecesThatDifferOnlyInTheirLastBytes) {
  TypeParam table(kTestBytes);
  const std::string stem = "abcdefghijklmnopqrstuvwxyz012345";
  for (std::size_t size = this->kShortest; size <= TypeParam::kMaxPiece; ++size) {
    const std::string piece = stem.substr(0, size);
    const Rank id = static_cast<Rank>(size);
    table.store(piece, &id, 1);
    std::vector<Rank> out;
    ASSERT_TRUE(table.lookup(piece, out)) << piece;
    ASSERT_EQ(out, std::vector<Rank>{id});
    std::string changed = piece;
    changed.back() = 'Z';
    EXPECT_FALSE(table.lookup(changed, out)) << changed;
    if (size < TypeParam::kMaxPiece) {
      EXPECT_FALSE(table.lookup(piece + std::string(1, '\0'), out)) << size;
    }
    EXPECT_EQ(out.size(), 1u);
  }
}

TYPED_TEST(PieceTableTest, CollidingPiecesEvictEachOtherButNeverAlias) {
  // Store more pieces than the table has entries; each lookup must give its own ids or miss.
  TypeParam table(kTestBytes);
  std::map<std::string, Rank> stored;
  for (Rank i = 0; i < kTestBytes / 16; ++i) {  // two pieces for each entry of 32 bytes
    const std::string piece = numbered('w', i * 7919, this->kShortest);
    table.store(piece, &i, 1);
    stored[piece] = i;
  }
  std::size_t hits = 0;
  for (const auto& [piece, id] : stored) {
    std::vector<Rank> out;
    if (!table.lookup(piece, out)) continue;
    ++hits;
    ASSERT_EQ(out, std::vector<Rank>{id}) << piece;
  }
  EXPECT_GT(hits, 0u);
  EXPECT_LT(hits, stored.size());  // more pieces than entries: some were evicted
}

TYPED_TEST(PieceTableTest, HoldsAPowerOfTwoOfLinesWithinItsBytes) {
  for (const std::size_t bytes : {std::size_t{64}, std::size_t{127}, std::size_t{128}, std::size_t{1000},
                                  kTestBytes, kTestBytes + 1, kTestBytes * 2 - 1, std::size_t{4} << 20}) {
    const TypeParam table(bytes);
    const std::size_t lines = table.memory_bytes() / TypeParam::kLineBytes;
    EXPECT_LE(table.memory_bytes(), bytes) << bytes;
    EXPECT_GT(table.memory_bytes() * 2, bytes) << bytes;  // the largest power of two that fits
    EXPECT_EQ(lines & (lines - 1), 0u) << bytes;
  }
}

// Ids are packed kIdBits apiece, three a word: the largest that fits comes back whole, in order,
// across words, and a larger one keeps its piece out; so do more ids than kMaxIds.
TYPED_TEST(PieceTableTest, PacksIdsUpToTheirWidthAndCount) {
  TypeParam table(kTestBytes);
  constexpr Rank kLargest = (Rank{1} << TypeParam::kIdBits) - 1;
  std::vector<Rank> ids;
  for (std::size_t i = 0; i < TypeParam::kMaxIds; ++i) ids.push_back(i % 2 ? static_cast<Rank>(i) : kLargest - i);
  const std::string wide = numbered('a', 1, this->kShortest);
  table.store(wide, ids.data(), ids.size());
  std::vector<Rank> out;
  ASSERT_TRUE(table.lookup(wide, out));
  EXPECT_EQ(out, ids);
  const Rank too_wide[] = {5, kLargest + 1};
  const std::string wider = numbered('a', 2, this->kShortest);
  table.store(wider, too_wide, 2);
  EXPECT_FALSE(table.lookup(wider, out));
  const std::vector<Rank> too_many(TypeParam::kMaxIds + 1, 7);
  const std::string many = numbered('a', 3, this->kShortest);
  table.store(many, too_many.data(), too_many.size());
  EXPECT_FALSE(table.lookup(many, out));
}

// Threads store and look up pieces of a small set in a table of two lines, so that writers keep
// replacing entries that readers are copying. A piece's ids are a function of it (its number,
// repeated 1 to kMaxIds times), so a torn read, ids of one piece under the key of another or a
// mix of two writes, shows as ids that are not that function. Each thread takes every piece twice
// in a row, so that its second look finds what it stored unless another thread replaced it since:
// with one look per piece, a run could see no hit at all (it did, once in CI), and test nothing.
TYPED_TEST(PieceTableTest, ReadersRacingWritersGetWholeEntriesOrMisses) {
  TypeParam table(2 * TypeParam::kLineBytes);
  constexpr std::size_t kPieces = 64;
  const auto ids_of = [](std::size_t n) { return std::vector<Rank>(n % TypeParam::kMaxIds + 1, static_cast<Rank>(n)); };
  std::atomic<std::size_t> hits{0}, wrong{0};
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<Rank> out;
      for (std::size_t i = 0; i < 200000; ++i) {
        const std::size_t n = (i / 2 * 31 + t * 17) % kPieces;
        const std::string piece = numbered('p', n, this->kShortest);
        out.clear();
        if (table.lookup(piece, out)) {
          ++hits;
          if (out != ids_of(n)) ++wrong;
        } else {
          const std::vector<Rank> ids = ids_of(n);
          table.store(piece, ids.data(), ids.size());
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(hits.load(), 0u);
}

// PieceCache sends a piece to the table of its size, and pieces longer than both to neither.
TEST(PieceCache, TakesPiecesUpTo32BytesInTwoTablesWithinItsBytes) {
  PieceCache cache(kTestBytes);
  EXPECT_LE(cache.memory_bytes(), kTestBytes);
  const Rank id = 42;
  std::vector<Rank> out;
  for (const std::size_t size : {std::size_t{1}, std::size_t{16}, std::size_t{17}, std::size_t{32}, std::size_t{33}}) {
    const std::string piece(size, 'q');
    cache.store(piece, &id, 1, true);
    out.clear();
    EXPECT_EQ(cache.lookup(piece, out), size <= PieceCache::kMaxPiece) << size;
  }
}

// A short piece of more ids than the short table holds is stored, with `overflow`, in the long
// table, and found there by lookup_overflow alone; without `overflow` it is not stored. Pieces of
// more ids than either table holds are stored nowhere.
TEST(PieceCache, KeepsShortPiecesOfManyIdsOnTheOverflowRouteOnly) {
  PieceCache cache(kTestBytes);
  const std::vector<Rank> three{1, 2, 3}, four{4, 5, 6, 7}, nine(PieceCache::LongTable::kMaxIds, 8),
      ten(PieceCache::LongTable::kMaxIds + 1, 9);
  std::vector<Rank> out;
  const std::string a = "short piece a", b = "short piece b", c = "short piece c", d = "short piece d";
  ASSERT_LE(a.size(), PieceCache::kMaxShortPiece);

  cache.store(a, three.data(), three.size(), true);  // fits the short table: stored there
  EXPECT_TRUE(cache.lookup(a, out));
  EXPECT_EQ(out, three);
  out.clear();
  EXPECT_FALSE(cache.lookup_overflow(a, out));

  cache.store(b, four.data(), four.size(), true);
  EXPECT_FALSE(cache.lookup(b, out));
  EXPECT_TRUE(cache.lookup_overflow(b, out));
  EXPECT_EQ(out, four);
  out.clear();

  cache.store(c, nine.data(), nine.size(), false);  // the route is off: nowhere
  EXPECT_FALSE(cache.lookup(c, out));
  EXPECT_FALSE(cache.lookup_overflow(c, out));
  cache.store(c, nine.data(), nine.size(), true);
  EXPECT_TRUE(cache.lookup_overflow(c, out));
  EXPECT_EQ(out, nine);
  out.clear();

  cache.store(d, ten.data(), ten.size(), true);
  EXPECT_FALSE(cache.lookup(d, out));
  EXPECT_FALSE(cache.lookup_overflow(d, out));
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace tokenizer
