// align_to_digit_groups moves chunk starts that fall inside runs of ASCII digits onto piece
// starts of the serial chain (cl100k and o200k cut a run into threes from its first digit), and
// leaves every other start where it is.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "chunked_encoding.hpp"
#include "random_text.hpp"
#include "tokenizer/pretokenizer.hpp"

namespace tokenizer {
namespace {

// Runs of ASCII digits from 1 to 300 long between words, spaces, punctuation (with '/' and ':',
// the bytes on either side of the digits), newlines and letters of other scripts (no digits of
// other scripts: a run they begin is out of reach here).
std::string digit_text(std::mt19937& gen) {
  static constexpr const char* kBetween[] = {"x", " ", "ab ", ", ", "\n", " -", ":", "/", "\xC3\xA9", " \xD0\xB4", "'s "};
  std::string text;
  while (text.size() < 20000) {
    text.append(gen() % 300 + 1, static_cast<char>('0' + gen() % 10));
    text += kBetween[gen() % std::size(kBetween)];
  }
  return text;
}

std::vector<std::size_t> piece_starts(std::string_view pattern, std::string_view text) {
  std::vector<std::size_t> starts;
  PreTokenizer(pattern).scan_from(text, 0, [&](std::size_t start, std::size_t) {
    starts.push_back(start);
    return true;
  });
  return starts;
}

TEST(DigitAlignment, MovesStartsInDigitRunsOntoPieceStarts) {
  std::mt19937 gen(5);
  for (int round = 0; round < 20; ++round) {
    const std::string text = digit_text(gen);
    for (const std::string_view pattern : {kCl100kPattern, kO200kPattern}) {
      const std::vector<std::size_t> pieces = piece_starts(pattern, text);
      // Starts a few bytes to a few thousand apart, so that runs hold none, one or several.
      std::vector<std::size_t> starts = {0};
      while (starts.back() + 4000 < text.size()) starts.push_back(starts.back() + 1 + gen() % 3000);
      const std::vector<std::size_t> before = starts;
      chunked::align_to_digit_groups(text, starts);
      for (std::size_t k = 0; k < starts.size(); ++k) {
        SCOPED_TRACE("round " + std::to_string(round) + ", start " + std::to_string(before[k]) + ": " +
                     test::escaped(std::string_view(text).substr(before[k] > 8 ? before[k] - 8 : 0, 24)));
        if (!chunked::is_ascii_digit(text[before[k]])) {
          EXPECT_EQ(starts[k], before[k]);
          continue;
        }
        EXPECT_GE(starts[k], before[k]);
        EXPECT_LE(starts[k], before[k] + 2);
        EXPECT_TRUE(std::binary_search(pieces.begin(), pieces.end(), starts[k]));
      }
    }
  }
}

TEST(DigitAlignment, RunAcrossManyStarts) {
  // One run of 1000 digits from offset 5 with starts every 100 bytes: each moves to the next
  // offset 5 + 3m.
  const std::string text = "abcd " + std::string(1000, '7') + " end";
  std::vector<std::size_t> starts;
  for (std::size_t at = 0; at < 1000; at += 100) starts.push_back(at);
  chunked::align_to_digit_groups(text, starts);
  for (std::size_t k = 1; k < starts.size(); ++k) {
    EXPECT_EQ((starts[k] - 5) % 3, 0u) << "start " << k * 100;
    EXPECT_LT(starts[k] - k * 100, 3u);
  }
}

TEST(DigitAlignment, GroupPastTheRunMovesToItsEnd) {
  // Run "12345" at 2..7: groups start at 2 and 5; a start at 6 would move to 8, past the run,
  // whose end (7) starts the next piece.
  const std::string text = "a 12345xyz";
  std::vector<std::size_t> starts = {0, 6};
  chunked::align_to_digit_groups(text, starts);
  EXPECT_EQ(starts[1], 7u);
}

}  // namespace
}  // namespace tokenizer
