// WholePieceLookup gives the rank table's answer whether or not it filters, and filters exactly
// while the last window's share of misses is above 1/kMissShareInverse (or, before a window has
// closed, as it was made to start).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "test_data.hpp"
#include "whole_piece_lookup.hpp"

namespace tokenizer {
namespace {

const auto* bytes_of(std::string_view s) { return reinterpret_cast<const std::uint8_t*>(s.data()); }

// The n-th of a sequence of 9-byte strings of letters and digits that are no token of `ranks`.
std::string absent_piece(const RankTable& ranks, std::size_t n) {
  static constexpr std::string_view kAlphabet = "qxzjQXZJ0123456789";
  for (;; ++n) {
    std::string piece(9, 'q');
    for (std::size_t i = 0, m = n; i < piece.size(); ++i, m /= kAlphabet.size()) piece[i] = kAlphabet[m % kAlphabet.size()];
    if (ranks.find(piece) == kNoRank) return piece;
  }
}

// Runs `lookups` lookups of which the first `misses` miss, then one more miss to close the window.
void run_window(WholePieceLookup& lookup, const RankTable& ranks, std::size_t lookups, std::size_t misses) {
  for (std::size_t i = 0; i < lookups; ++i) {
    if (i < misses) {
      const std::string piece = absent_piece(ranks, i);
      ASSERT_EQ(lookup.find(bytes_of(piece), piece.size()), kNoRank);
    } else {
      ASSERT_EQ(lookup.find(bytes_of("a"), 1), ranks.byte_rank('a'));
    }
  }
  const std::string last = absent_piece(ranks, misses);
  ASSERT_EQ(lookup.find(bytes_of(last), last.size()), kNoRank);
}

class WholePieces : public ::testing::TestWithParam<std::string> {
 protected:
  const RankTable& ranks() const { return test::tokenizer(GetParam()).vocabulary().ranks(); }
};

TEST_P(WholePieces, FiltersWhileTheLastWindowMissedOftenEnough) {
  constexpr std::size_t kWindow = WholePieceLookup::kWindow;
  // The closing miss counts: a window of kWindow lookups plus it, of which m + 1 miss, filters
  // iff (m + 1) * kMissShareInverse > kWindow + 1.
  constexpr std::size_t kMostMissesUnfiltered = (kWindow + 1) / WholePieceLookup::kMissShareInverse - 1;
  WholePieceLookup lookup(ranks());
  EXPECT_FALSE(lookup.filtering());
  run_window(lookup, ranks(), kWindow, kMostMissesUnfiltered);
  EXPECT_FALSE(lookup.filtering());
  run_window(lookup, ranks(), kWindow, kMostMissesUnfiltered + 1);
  EXPECT_TRUE(lookup.filtering());
  // A window that has not reached kWindow lookups decides nothing.
  run_window(lookup, ranks(), kWindow / 2, 0);
  EXPECT_TRUE(lookup.filtering());
  run_window(lookup, ranks(), kWindow, 0);
  EXPECT_FALSE(lookup.filtering());
}

// Behind a piece memo the first window filters: it starts so, and the windows rule from then on.
TEST_P(WholePieces, StartsFilteringWhenAskedAndWindowsDecideAfter) {
  WholePieceLookup lookup(ranks(), true);
  EXPECT_TRUE(lookup.filtering());
  run_window(lookup, ranks(), WholePieceLookup::kWindow / 2, 0);
  EXPECT_TRUE(lookup.filtering());
  run_window(lookup, ranks(), WholePieceLookup::kWindow, 0);
  EXPECT_FALSE(lookup.filtering());
}

TEST_P(WholePieces, FindsEveryTokenAndNothingElseEitherWay) {
  WholePieceLookup plain(ranks());
  WholePieceLookup filtered(ranks());
  run_window(filtered, ranks(), WholePieceLookup::kWindow, WholePieceLookup::kWindow);
  ASSERT_TRUE(filtered.filtering());
  for (Rank rank = 0; rank < ranks().rank_end(); ++rank) {
    const std::string_view token = ranks().bytes(rank);
    if (token.empty()) continue;
    ASSERT_EQ(plain.find(bytes_of(token), token.size()), rank) << rank;
    ASSERT_EQ(filtered.find(bytes_of(token), token.size()), rank) << rank;
    // A byte more is no token unless the vocabulary says so.
    const std::string longer = std::string(token) + "\x01";
    ASSERT_EQ(filtered.find(bytes_of(longer), longer.size()), ranks().find(longer)) << rank;
    // Padded lookups read 8 bytes from the token's start: here the longer key and 7 more.
    const std::string padded = longer + "\x02\x03\x04\x05\x06\x07\x08";
    ASSERT_EQ(plain.find_padded(bytes_of(padded), token.size()), rank) << rank;
    ASSERT_EQ(filtered.find_padded(bytes_of(padded), token.size()), rank) << rank;
    ASSERT_EQ(filtered.find_padded(bytes_of(padded), longer.size()), ranks().find(longer)) << rank;
  }
  // Half of the filtered lookups missed, so every window kept the filter on; the plain lookup
  // never missed, so never filtered.
  EXPECT_TRUE(filtered.filtering());
  EXPECT_FALSE(plain.filtering());
  const std::string too_long(ranks().max_token_size() + 1, 'a');
  EXPECT_EQ(filtered.find(bytes_of(too_long), too_long.size()), kNoRank);
}

INSTANTIATE_TEST_SUITE_P(Builtin, WholePieces, ::testing::ValuesIn(Vocabulary::builtin_names()));

}  // namespace
}  // namespace tokenizer
