// PieceMemo answers only for the exact piece it stored (every byte and the size), with exactly
// its ids; a piece it cannot hold (too many ids, an id too large) is never stored; a piece that
// another replaced misses rather than getting another's ids; and PieceMemoPool never hands one
// memo to two holders at once, nor makes more memos than it may, and makes a bulk memo only when
// asked.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "padded_piece.hpp"
#include "piece_memo.hpp"

namespace tokenizer {
namespace {

constexpr std::size_t kTestBytes = 64 * 1024;

// The piece's ids by the lookups an encoder makes: find_short then find_many for a piece of up to
// 8 bytes, find_long for a longer one; empty for a miss.
std::vector<Rank> found_ids(PieceMemo& memo, const std::string& piece) {
  const test::PaddedPiece p(piece);
  Rank ids[PieceMemo::kMaxIds];
  std::size_t count = 0;
  if (p.size <= PieceMemo::kMaxShortPiece) {
    if (const std::uint64_t* words = memo.find_short(p.data(), p.size))
      count = PieceMemo::ShortTable::unpack(words, ids);
    else if (const std::uint64_t* many = memo.find_many(p.data(), p.size))
      count = PieceMemo::LongTable::unpack(many, ids);
  } else if (const std::uint64_t* words = memo.find_long(p.data(), p.size)) {
    count = PieceMemo::LongTable::unpack(words, ids);
  }
  std::vector<Rank> found(ids, ids + count);
  // append, the per-piece path, agrees where it answers (it leaves pieces of many ids to find_many).
  std::vector<Rank> appended = {99};
  if (memo.append(p.data(), p.size, appended)) {
    EXPECT_EQ(std::vector<Rank>(appended.begin() + 1, appended.end()), found) << piece;
  }
  // So does the batch loop's first compare, its probe made apart: find_short moved a piece it found
  // in its first line to that line's first entry, where this compare finds it.
  if (p.size <= PieceMemo::kMaxShortPiece) {
    if (const std::uint64_t* first = PieceMemo::find_short_first(memo.probe_short(p.data(), p.size), p.size)) {
      Rank first_ids[PieceMemo::kMaxIds];
      EXPECT_EQ(std::vector<Rank>(first_ids, first_ids + PieceMemo::ShortTable::unpack(first, first_ids)), found) << piece;
    }
  }
  return found;
}

void store(PieceMemo& memo, const std::string& piece, const std::vector<Rank>& ids) {
  const test::PaddedPiece p(piece);
  memo.store(p.data(), p.size, ids.data(), ids.size());
}

TEST(PieceMemo, FindsExactlyTheStoredPieceWithItsIds) {
  PieceMemo memo(kTestBytes);
  const std::string stem = "abcdefghijklmnop";
  for (std::size_t size = 1; size <= PieceMemo::kMaxPiece; ++size) {
    const std::string piece = stem.substr(0, size);
    EXPECT_TRUE(found_ids(memo, piece).empty()) << piece;
    std::vector<Rank> ids;
    for (std::size_t i = 0; i < 1 + size % PieceMemo::kMaxIds; ++i) ids.push_back(static_cast<Rank>(1000 * size + i));
    store(memo, piece, ids);
    EXPECT_EQ(found_ids(memo, piece), ids) << piece;
  }
  // Every size is still there (the tests below check that replacement never mixes pieces up).
  for (std::size_t size = 1; size <= PieceMemo::kMaxPiece; ++size)
    EXPECT_EQ(found_ids(memo, stem.substr(0, size)).size(), 1 + size % PieceMemo::kMaxIds) << size;
}

// Heads are zero-padded, so a piece and the same bytes with NULs after them share their key words:
// only the size tells them apart. Pieces of 9 to 16 bytes also differ only inside, between their
// first and last 8 bytes, where the two words overlap. A memo of one line a table, so that every
// piece meets the others in its line.
TEST(PieceMemo, TellsApartPiecesThatShareTheirKeyWords) {
  PieceMemo memo(2 * PieceMemoTable<1>::kLineBytes);
  ASSERT_EQ(memo.memory_bytes(), 2 * PieceMemoTable<1>::kLineBytes);
  store(memo, "ab", {7});
  EXPECT_TRUE(found_ids(memo, std::string("ab\0", 3)).empty());
  store(memo, std::string("ab\0", 3), {8});
  EXPECT_EQ(found_ids(memo, "ab"), std::vector<Rank>{7});
  EXPECT_EQ(found_ids(memo, std::string("ab\0", 3)), std::vector<Rank>{8});
  const std::string twelve = "0123456789ab";
  store(memo, twelve, {9});
  for (const std::size_t at : {6, 10}) {  // in both words; in the last only
    std::string other = twelve;
    other[at] = 'X';
    EXPECT_TRUE(found_ids(memo, other).empty()) << other;
  }
  EXPECT_TRUE(found_ids(memo, twelve + std::string("\0", 1)).empty());
  EXPECT_EQ(found_ids(memo, twelve), std::vector<Rank>{9});
  // Pieces of many ids share the long table, keyed by their head and a zero word (a memo of its
  // own: the long table's line has room for two).
  PieceMemo many(2 * PieceMemoTable<1>::kLineBytes);
  store(many, "xy", {1, 2, 3, 4});
  store(many, std::string("xy\0", 3), {5, 6, 7, 8, 9});
  EXPECT_EQ(found_ids(many, "xy"), (std::vector<Rank>{1, 2, 3, 4}));
  EXPECT_EQ(found_ids(many, std::string("xy\0", 3)), (std::vector<Rank>{5, 6, 7, 8, 9}));
  EXPECT_TRUE(found_ids(many, "xz").empty());
}

// A piece of up to 8 bytes and 4 to 6 ids lives in the long table and leaves a marker in the
// short one, and find_many reads the long table only while the marker is there: a marker that a
// newer piece replaced makes the piece miss, never gives another's ids. One line a table: a new
// piece replaces the line's last entry once the line is full.
TEST(PieceMemo, FindsAPieceOfManyIdsThroughItsMarker) {
  PieceMemo memo(2 * PieceMemoTable<1>::kLineBytes);
  store(memo, "a", {1});
  store(memo, "b", {2});
  store(memo, "c", {3});
  store(memo, "xy", {4, 5, 6, 7});  // its marker takes the short line's last entry
  EXPECT_EQ(found_ids(memo, "xy"), (std::vector<Rank>{4, 5, 6, 7}));
  const test::PaddedPiece xy("xy");
  EXPECT_EQ(memo.find_short(xy.data(), xy.size), nullptr);  // a marker is no piece
  store(memo, "d", {8});  // replaces the marker
  EXPECT_EQ(found_ids(memo, "d"), std::vector<Rank>{8});
  EXPECT_TRUE(found_ids(memo, "xy").empty());
  for (const char* piece : {"a", "b", "c"}) EXPECT_EQ(found_ids(memo, piece).size(), 1u) << piece;
  store(memo, "xy", {4, 5, 6, 7});
  EXPECT_EQ(found_ids(memo, "xy"), (std::vector<Rank>{4, 5, 6, 7}));
}

TEST(PieceMemo, StoresNoPieceItCannotHoldWhole) {
  PieceMemo memo(kTestBytes);
  store(memo, "seven", {1, 2, 3, 4, 5, 6, 7});                     // more ids than an entry holds
  store(memo, "ninebytes", {1, 2, 3, 4, 5, 6, 7});
  store(memo, "big", {Rank{1} << PieceMemo::ShortTable::kIdBits});   // an id too large
  store(memo, "big many", {1, 2, 3, Rank{1} << PieceMemo::ShortTable::kIdBits});
  store(memo, "empty", {});                                          // no ids (no piece has none)
  for (const char* piece : {"seven", "ninebytes", "big", "big many", "empty"}) EXPECT_TRUE(found_ids(memo, piece).empty()) << piece;
  const Rank largest = (Rank{1} << PieceMemo::ShortTable::kIdBits) - 1;
  store(memo, "max", {largest, 0, largest});
  EXPECT_EQ(found_ids(memo, "max"), (std::vector<Rank>{largest, 0, largest}));
  store(memo, "six", {largest, 1, 2, 3, 4, largest});
  EXPECT_EQ(found_ids(memo, "six"), (std::vector<Rank>{largest, 1, 2, 3, 4, largest}));
}

// Far more pieces than a small memo holds, each stored once with ids of its own, then read back
// in another order, twice (hits move pieces within their line): each either misses or gives its
// own ids, and the memo keeps about as many as it has entries.
TEST(PieceMemo, AReplacedPieceMissesAndNoPieceGetsAnothersIds) {
  constexpr std::size_t kBytes = 4 * 1024;  // 128 short entries and 64 long ones
  PieceMemo memo(kBytes);
  EXPECT_EQ(memo.memory_bytes(), kBytes);
  std::mt19937 gen(7);
  std::map<std::string, std::vector<Rank>> stored;
  while (stored.size() < 5000) {
    std::string piece(1 + gen() % PieceMemo::kMaxPiece, 'a');
    for (char& c : piece) c = static_cast<char>('a' + gen() % 4);  // few letters: many share heads
    std::vector<Rank> ids(1 + gen() % PieceMemo::kMaxIds);
    for (Rank& id : ids) id = gen() % (Rank{1} << PieceMemoTable<1>::kIdBits);
    if (stored.emplace(piece, ids).second) store(memo, piece, ids);
  }
  for (int round = 0; round < 2; ++round) {
    std::size_t hits = 0;
    for (auto it = stored.rbegin(); it != stored.rend(); ++it) {
      const std::vector<Rank> got = found_ids(memo, it->first);
      if (got.empty()) continue;
      ++hits;
      ASSERT_EQ(got, it->second) << it->first;
    }
    EXPECT_GT(hits, 100u);
    EXPECT_LE(hits, 192u);
  }
}

// A piece whose line is full goes to its second line: of pieces that fill the short table three
// quarters and the long one half (two entries a line), the memo keeps all but 62, where one line a
// piece loses those of every line that more pieces share than it has entries (217 of these 2,048).
TEST(PieceMemo, KeepsPiecesWhoseLineIsFullInTheirSecondLine) {
  PieceMemo memo(kTestBytes);  // 2,048 short entries and 1,024 long ones
  std::mt19937 gen(11);
  std::map<std::string, std::vector<Rank>> stored;
  std::size_t short_pieces = 0, long_pieces = 0;
  while (short_pieces < 1536 || long_pieces < 512) {
    const bool is_short = short_pieces < 1536;
    std::string piece(is_short ? 1 + gen() % 8 : 9 + gen() % 8, 'a');
    for (char& c : piece) c = static_cast<char>('a' + gen() % 26);
    std::vector<Rank> ids(1 + gen() % 3);
    for (Rank& id : ids) id = gen() % 100000;
    if (!stored.emplace(piece, ids).second) continue;
    store(memo, piece, ids);
    ++(is_short ? short_pieces : long_pieces);
  }
  std::size_t lost = 0;
  for (const auto& [piece, ids] : stored) {
    const std::vector<Rank> got = found_ids(memo, piece);
    if (got.empty()) {
      ++lost;
    } else {
      ASSERT_EQ(got, ids) << piece;
    }
  }
  EXPECT_LE(lost, 100u);
}

TEST(PieceMemoPool, NeverLeasesOneMemoTwiceAndMakesAtMostItsCount) {
  PieceMemoPool pool(kTestBytes, LongPieceMemo::kMinBytes, BulkPieceMemo::kMinBytes, 2);
  EXPECT_EQ(pool.memory_bytes(), 0u);  // made on first lease
  {
    PieceMemoPool::Lease a = pool.lease();
    PieceMemoPool::Lease b = pool.lease();
    PieceMemoPool::Lease c = pool.lease();
    ASSERT_NE(a.memo(), nullptr);
    ASSERT_NE(b.memo(), nullptr);
    EXPECT_NE(a.memo(), b.memo());
    EXPECT_EQ(c.memo(), nullptr);  // every memo leased: none
    EXPECT_EQ(pool.memory_bytes(), 2 * PieceMemo::memory_for(kTestBytes, LongPieceMemo::kMinBytes));
  }
  // Returned: this thread finds the memo it filled before.
  PieceMemo* first;
  {
    PieceMemoPool::Lease a = pool.lease();
    first = a.memo();
    store(*first, "kept", {42});
  }
  PieceMemoPool::Lease again = pool.lease();
  ASSERT_EQ(again.memo(), first);
  EXPECT_EQ(found_ids(*again.memo(), "kept"), std::vector<Rank>{42});
  EXPECT_EQ(pool.memory_bytes(), 2 * PieceMemo::memory_for(kTestBytes, LongPieceMemo::kMinBytes));
}

// A slot's bulk memo is made when its holder first asks, counted in the pool's memory from then
// on, kept for the slot's later leases; none where the pool's bulk memory is below the least.
TEST(PieceMemoPool, MakesABulkMemoOnFirstAskAndKeepsIt) {
  constexpr std::size_t kBulkBytes = 64 * 1024;
  PieceMemoPool pool(kTestBytes, LongPieceMemo::kMinBytes, kBulkBytes, 1);
  const std::size_t memo_bytes = PieceMemo::memory_for(kTestBytes, LongPieceMemo::kMinBytes);
  BulkPieceMemo* first;
  {
    PieceMemoPool::Lease a = pool.lease();
    EXPECT_FALSE(a.has_bulk());
    EXPECT_EQ(pool.memory_bytes(), memo_bytes);
    first = a.bulk();
    ASSERT_NE(first, nullptr);
    EXPECT_TRUE(a.has_bulk());
    EXPECT_EQ(a.bulk(), first);
    EXPECT_EQ(pool.memory_bytes(), memo_bytes + BulkPieceMemo::memory_for(kBulkBytes));
    EXPECT_LE(BulkPieceMemo::memory_for(kBulkBytes), kBulkBytes);
    EXPECT_EQ(PieceMemoPool::Lease().bulk(), nullptr);  // a lease of no memo has none
  }
  PieceMemoPool::Lease again = pool.lease();
  EXPECT_TRUE(again.has_bulk());
  EXPECT_EQ(again.bulk(), first);

  PieceMemoPool without(kTestBytes, LongPieceMemo::kMinBytes, BulkPieceMemo::kMinBytes - 1, 1);
  PieceMemoPool::Lease lease = without.lease();
  ASSERT_NE(lease.memo(), nullptr);
  EXPECT_EQ(lease.bulk(), nullptr);
  EXPECT_EQ(without.memory_bytes(), memo_bytes);
}

TEST(PieceMemoPool, NoMemosWhenOff) {
  PieceMemoPool none(0, LongPieceMemo::kMinBytes, BulkPieceMemo::kMinBytes, 4);
  EXPECT_EQ(none.lease().memo(), nullptr);
  EXPECT_EQ(none.memory_bytes(), 0u);
  PieceMemoPool zero(kTestBytes, LongPieceMemo::kMinBytes, BulkPieceMemo::kMinBytes, 0);
  EXPECT_EQ(zero.lease().memo(), nullptr);
}

}  // namespace
}  // namespace tokenizer
