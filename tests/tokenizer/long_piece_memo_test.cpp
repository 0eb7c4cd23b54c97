// LongPieceMemo answers only for the exact piece it stored (every byte and the size), with exactly
// its ids; keeps no piece whose record would take more than a quarter of its arena; and, past its
// bound, forgets everything at once rather than growing or mixing pieces up.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "long_piece_memo.hpp"

namespace tokenizer {
namespace {

const std::uint8_t* bytes_of(const std::string& piece) { return reinterpret_cast<const std::uint8_t*>(piece.data()); }

void store(LongPieceMemo& memo, const std::string& piece, const std::vector<Rank>& ids) {
  memo.store(bytes_of(piece), piece.size(), ids.data(), ids.size());
}

// The piece's ids appended after an id already there; empty for a miss.
std::vector<Rank> found_ids(const LongPieceMemo& memo, const std::string& piece) {
  std::vector<Rank> out = {99};
  if (!memo.append(bytes_of(piece), piece.size(), out)) {
    EXPECT_EQ(out, std::vector<Rank>{99}) << "a miss appends nothing";
    return {};
  }
  return {out.begin() + 1, out.end()};
}

TEST(LongPieceMemo, FindsExactlyTheStoredPieceWithItsIds) {
  LongPieceMemo memo(64 * 1024);
  // Same size, same first and last 8 bytes, a different byte inside; and a piece one byte longer.
  const std::string piece = "first 8 - the middle - last 8 b";
  std::string inside = piece;
  inside[12] = 'X';
  EXPECT_TRUE(found_ids(memo, piece).empty());
  store(memo, piece, {1, 2, 3});
  EXPECT_EQ(found_ids(memo, piece), (std::vector<Rank>{1, 2, 3}));
  EXPECT_TRUE(found_ids(memo, inside).empty());
  EXPECT_TRUE(found_ids(memo, piece + "b").empty());
  store(memo, inside, {4});
  EXPECT_EQ(found_ids(memo, inside), std::vector<Rank>{4});
  EXPECT_EQ(found_ids(memo, piece), (std::vector<Rank>{1, 2, 3}));
  // Nine bytes, the shortest a caller asks for (its last 8 overlap its first).
  store(memo, "ninebytes", {5, 6});
  EXPECT_EQ(found_ids(memo, "ninebytes"), (std::vector<Rank>{5, 6}));
  EXPECT_TRUE(found_ids(memo, "ninebytez").empty());
}

TEST(LongPieceMemo, KeepsNoPieceOfMoreThanAQuarterOfItsArenaAndNoneBelowItsLeast) {
  constexpr std::size_t kBytes = 16 * 1024;
  LongPieceMemo memo(kBytes);
  EXPECT_EQ(memo.memory_bytes(), LongPieceMemo::memory_for(kBytes));
  EXPECT_LE(memo.memory_bytes(), kBytes);
  const std::string fits(3000, 'a'), too_long(kBytes / 2, 'b');
  store(memo, fits, {7});
  store(memo, too_long, {8});
  EXPECT_EQ(found_ids(memo, fits), std::vector<Rank>{7});
  EXPECT_TRUE(found_ids(memo, too_long).empty());
  LongPieceMemo none(LongPieceMemo::kMinBytes - 1);
  EXPECT_EQ(none.memory_bytes(), 0u);
  EXPECT_EQ(LongPieceMemo::memory_for(LongPieceMemo::kMinBytes - 1), 0u);
  store(none, fits.substr(0, 20), {9});
  EXPECT_TRUE(found_ids(none, fits.substr(0, 20)).empty());
}

// Far more pieces than a small memo holds, each with ids of its own: a piece found gives its own
// ids; the memo forgets everything at once when full, so the pieces stored since then are all
// found; its memory stays what it was made with.
TEST(LongPieceMemo, PastItsBoundForgetsEverythingAndNeverMixesPiecesUp) {
  constexpr std::size_t kBytes = 8 * 1024;
  LongPieceMemo memo(kBytes);
  const std::size_t memory = memo.memory_bytes();
  std::mt19937 gen(11);
  std::map<std::string, std::vector<Rank>> stored;
  std::vector<std::string> order;
  while (stored.size() < 2000) {
    std::string piece(9 + gen() % 60, 'a');
    for (char& c : piece) c = static_cast<char>('a' + gen() % 3);  // few letters: many share bytes
    if (stored.count(piece)) continue;
    std::vector<Rank> ids(1 + gen() % 12);
    for (Rank& id : ids) id = static_cast<Rank>(gen() % 200000);
    store(memo, piece, ids);
    stored.emplace(piece, ids);
    order.push_back(piece);
  }
  std::size_t found = 0;
  for (const auto& [piece, ids] : stored) {
    const std::vector<Rank> got = found_ids(memo, piece);
    if (got.empty()) continue;
    ++found;
    EXPECT_EQ(got, ids) << piece;
  }
  EXPECT_GT(found, 0u);
  EXPECT_LT(found, stored.size());
  // The last piece stored is always there: a store that does not fit forgets the others first.
  EXPECT_EQ(found_ids(memo, order.back()), stored[order.back()]);
  EXPECT_EQ(memo.memory_bytes(), memory);
}

}  // namespace
}  // namespace tokenizer
