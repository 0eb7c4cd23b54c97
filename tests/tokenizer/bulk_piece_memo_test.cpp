// BulkPieceMemo answers only for the exact piece it stored (every byte and the size), with exactly
// its ids, for every size and id count it keeps; keeps no piece with an id past its bits or more
// ids than it holds; hands longer pieces to its long-piece memo; and, past its bound, loses
// pieces rather than mixing them up or growing, pieces of one slot and of a line replacing each
// other in the same buckets.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bulk_piece_memo.hpp"
#include "padded_piece.hpp"

namespace tokenizer {
namespace {

constexpr std::size_t kBulkTestBytes = 256 * 1024;

void store(BulkPieceMemo& memo, const std::string& piece, const std::vector<Rank>& ids) {
  const test::PaddedPiece p(piece);
  memo.store(p.data(), p.size, ids.data(), ids.size());
}

// The piece's ids appended after an id already there; empty for a miss. find and unpack, the
// encoder's way, agree with append.
std::vector<Rank> found_ids(const BulkPieceMemo& memo, const std::string& piece) {
  const test::PaddedPiece p(piece);
  std::vector<Rank> out = {99};
  const bool found = memo.append(p.data(), p.size, out);
  if (p.size <= BulkPieceMemo::kMaxPiece) {
    const BulkPieceMemo::Slot* slot = BulkPieceMemo::find(memo.probe(p.data(), p.size), p.size);
    EXPECT_EQ(slot != nullptr, found) << piece;
    if (slot) {
      Rank ids[BulkPieceMemo::kMaxIds];
      const std::size_t count = BulkPieceMemo::unpack(slot, ids);
      EXPECT_EQ(std::vector<Rank>(ids, ids + count), std::vector<Rank>(out.begin() + 1, out.end())) << piece;
    }
  }
  if (!found) {
    EXPECT_EQ(out, std::vector<Rank>{99}) << "a miss appends nothing";
    return {};
  }
  return {out.begin() + 1, out.end()};
}

// Ids that use every bit a field has: the largest a field holds, then ones that differ from it.
std::vector<Rank> ids_of(std::size_t count, Rank salt) {
  std::vector<Rank> ids;
  for (std::size_t i = 0; i < count; ++i)
    ids.push_back(i == 0 ? (Rank{1} << BulkPieceMemo::kIdBits) - 1 : static_cast<Rank>((salt * 7919 + i * 104729) % (1u << BulkPieceMemo::kIdBits)));
  return ids;
}

TEST(BulkPieceMemo, FindsEveryStoredPieceOfEverySizeWithAllItsIds) {
  BulkPieceMemo memo(kBulkTestBytes);
  // Each size twice, with as many ids as the piece has bytes (the most BPE gives it) or kMaxIds, and
  // with one.
  const std::string stems[] = {"abcdefghijklmnopqrstuvwxyz0123456789", "ABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%&()*+,"};
  for (std::size_t size = 1; size <= stems[0].size(); ++size) {
    for (std::size_t count : {std::size_t{1}, size > BulkPieceMemo::kMaxPiece ? size : std::min(size, BulkPieceMemo::kMaxIds)}) {
      const std::string piece = stems[count == 1].substr(0, size);
      const std::vector<Rank> ids = ids_of(count, static_cast<Rank>(size));
      store(memo, piece, ids);
      EXPECT_EQ(found_ids(memo, piece), ids) << piece;
    }
  }
}

TEST(BulkPieceMemo, TellsApartPiecesThatShareTheirKeyWordsButNotTheirBytesOrSize) {
  BulkPieceMemo memo(kBulkTestBytes);
  // Two pieces of 12 bytes that differ in a middle byte; a prefix of one; one with a zero byte at
  // the end, whose zero-padded head equals the shorter piece's.
  const std::string a = "0123456789ab", b = "0123X56789ab";
  store(memo, a, {1, 2});
  EXPECT_EQ(found_ids(memo, a), (std::vector<Rank>{1, 2}));
  EXPECT_TRUE(found_ids(memo, b).empty());
  EXPECT_TRUE(found_ids(memo, a.substr(0, 11)).empty());
  store(memo, "xyz", {3});
  EXPECT_TRUE(found_ids(memo, std::string("xyz\0", 4)).empty());
  store(memo, std::string("xyz\0", 4), {4});
  EXPECT_EQ(found_ids(memo, "xyz"), std::vector<Rank>{3});
  EXPECT_EQ(found_ids(memo, std::string("xyz\0", 4)), std::vector<Rank>{4});
}

TEST(BulkPieceMemo, KeepsNoPieceWithAnIdPastItsBitsNorTooManyIdsNorNone) {
  BulkPieceMemo memo(kBulkTestBytes);
  store(memo, "large", {1, Rank{1} << BulkPieceMemo::kIdBits});
  EXPECT_TRUE(found_ids(memo, "large").empty());
  store(memo, "empty", {});
  EXPECT_TRUE(found_ids(memo, "empty").empty());
  store(memo, "thirteen ids!", ids_of(BulkPieceMemo::kMaxIds + 1, 4));
  EXPECT_TRUE(found_ids(memo, "thirteen ids!").empty());
  // A piece of more than kMaxPiece bytes goes to the long-piece memo, any number of ids.
  const std::string long_piece(40, 'q');
  store(memo, long_piece, ids_of(40, 5));
  EXPECT_EQ(found_ids(memo, long_piece), ids_of(40, 5));
}

// At a third of its slots, as random base64 fills the default memo, a small memo keeps every piece:
// those whose bucket is full go to the bucket's pair, pieces of one slot and of a line alike (where
// a full bucket evicted, some 5% of such pieces were lost, and merged again on every call).
TEST(BulkPieceMemo, KeepsEveryPieceAtAThirdOfItsSlots) {
  BulkPieceMemo memo(16 * 1024);  // 112 buckets, 448 slots
  std::mt19937 gen(5);
  std::map<std::string, std::vector<Rank>> stored;
  std::size_t slots = 0;
  while (slots < 448 / 3) {
    std::string piece(2 + gen() % 15, 'a');
    for (char& c : piece) c = static_cast<char>('a' + gen() % 26);
    if (stored.contains(piece)) continue;
    const bool line = gen() % 3 == 0;  // as two pieces in five of random base64's take a line
    const std::vector<Rank> ids = ids_of(line ? 5 + gen() % 8 : 1 + gen() % 4, static_cast<Rank>(stored.size()));
    store(memo, piece, ids);
    stored[piece] = ids;
    slots += line ? 2 : 1;
  }
  for (const auto& [piece, ids] : stored) EXPECT_EQ(found_ids(memo, piece), ids) << piece;
}

// Far more pieces than a small memo holds, each with ids of its own: a piece found gives its own
// ids, the latest ones stored are mostly found, and the memory stays what it was made with.
TEST(BulkPieceMemo, PastItsBoundLosesPiecesButNeverMixesThemUp) {
  constexpr std::size_t kBytes = 16 * 1024;  // 112 buckets of four slots, 2 KiB for long pieces
  BulkPieceMemo memo(kBytes);
  const std::size_t memory = memo.memory_bytes();
  EXPECT_LE(memory, kBytes);
  EXPECT_EQ(memory, BulkPieceMemo::memory_for(kBytes));
  std::mt19937 gen(3);
  std::map<std::string, std::vector<Rank>> stored;
  while (stored.size() < 5000) {
    std::string piece(1 + gen() % 24, 'a');
    for (char& c : piece) c = static_cast<char>('a' + gen() % 4);  // many share their first bytes
    if (stored.contains(piece)) continue;
    const std::vector<Rank> ids = ids_of(1 + gen() % std::min<std::size_t>(piece.size(), BulkPieceMemo::kMaxIds), static_cast<Rank>(stored.size()));
    store(memo, piece, ids);
    stored[piece] = ids;
  }
  std::size_t found = 0;
  for (const auto& [piece, ids] : stored) {
    const std::vector<Rank> got = found_ids(memo, piece);
    if (got.empty()) continue;
    ++found;
    ASSERT_EQ(got, ids) << piece;
  }
  EXPECT_GT(found, 100u);
  EXPECT_LT(found, stored.size());
  EXPECT_EQ(memo.memory_bytes(), memory);
}

}  // namespace
}  // namespace tokenizer
