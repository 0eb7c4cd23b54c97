// Every short-piece merger this CPU runs (not only the one dispatch picks) gives exactly the
// textbook BPE of the oracle, for every piece size it takes, on real and random bytes.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "oracle.hpp"
#include "random_text.hpp"
#include "short_piece_merger.hpp"
#include "test_data.hpp"

namespace tokenizer {
namespace {

struct MergerCase {
  const ShortPieceMerger* merger;
  const char* encoding;

  friend void PrintTo(const MergerCase& c, std::ostream* os) { *os << isa::name(c.merger->isa) << "/" << c.encoding; }
};

std::vector<MergerCase> supported_merger_cases() {
  std::vector<MergerCase> cases;
  for (const ShortPieceMerger& m : all_short_piece_mergers()) {
    if (!isa::cpu_supports(m.isa)) continue;
    for (const char* encoding : {"r50k_base", "cl100k_base", "o200k_base"}) cases.push_back({&m, encoding});
  }
  return cases;
}

std::string merger_case_name(const ::testing::TestParamInfo<MergerCase>& info) {
  return std::string(isa::name(info.param.merger->isa)) + "_" + info.param.encoding;
}

class ShortPieceMergerTest : public ::testing::TestWithParam<MergerCase> {
 protected:
  const RankTable& ranks() const { return test::tokenizer(GetParam().encoding).vocabulary().ranks(); }

  // Merges `piece` (2 to max_size bytes) and compares with the oracle; the merger may write
  // past its count, so the buffer is filled with a marker first and only the count is compared.
  void expect_textbook(std::string_view piece) const {
    const ShortPieceMerger& merger = *GetParam().merger;
    Rank ids[kMaxShortMerge];
    std::fill(std::begin(ids), std::end(ids), Rank{12345});
    const std::size_t count = merger.merge(ranks(), reinterpret_cast<const std::uint8_t*>(piece.data()), piece.size(), ids);
    ASSERT_LE(count, piece.size());
    const std::vector<Rank> expected = test::textbook_bpe(piece, ranks());
    ASSERT_EQ(expected, std::vector<Rank>(ids, ids + count)) << "piece " << test::escaped(piece);
  }
};

// Every substring of 2 to max_size bytes at offsets spread over the first 20,000 bytes of every
// corpus file (every 7th for a merger of up to 16 bytes, fewer for longer ones, so that each
// merger checks about as many bytes): the byte patterns of real text in six scripts and code,
// cut anywhere, UTF-8 sequences halved included.
TEST_P(ShortPieceMergerTest, GivesTheTextbookIdsOfRealTextCutAnywhere) {
  const std::size_t most = GetParam().merger->max_size;
  const std::size_t stride = 7 * most * most / 256 + 1;
  for (const std::string& name : test::corpus_names()) {
    const std::string text = test::read_corpus(name);
    for (std::size_t at = 0; at + most <= text.size() && at < 20'000; at += stride)
      for (std::size_t size = 2; size <= most; ++size) {
        expect_textbook(std::string_view(text).substr(at, size));
        if (HasFatalFailure()) return;
      }
  }
}

// Random base64 (words that never recur, many merges of short tokens), random bytes, and runs of
// one or two letters, whose pairs tie on every merge: the leftmost must win.
TEST_P(ShortPieceMergerTest, GivesTheTextbookIdsOfRandomAndTiedPieces) {
  static constexpr std::string_view kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::size_t most = GetParam().merger->max_size;
  std::mt19937 gen(7);
  std::string piece;
  for (int round = 0; round < 20'000; ++round) {
    const std::size_t size = 2 + gen() % (most - 1);
    piece.clear();
    for (std::size_t i = 0; i < size; ++i)
      piece += round % 2 == 0 ? kBase64[gen() % 64] : static_cast<char>(gen() % 256);
    expect_textbook(piece);
    if (HasFatalFailure()) return;
  }
  for (const std::string_view unit : {"a", " ", "0", "ab", "\xE2\x96"})
    for (std::size_t size = 2; size <= most; ++size) {
      piece.clear();
      while (piece.size() < size) piece += unit;
      piece.resize(size);
      expect_textbook(piece);
      if (HasFatalFailure()) return;
    }
}

INSTANTIATE_TEST_SUITE_P(AllSupported, ShortPieceMergerTest, ::testing::ValuesIn(supported_merger_cases()),
                         merger_case_name);

// The table ends with the baseline, which takes every short piece, and lists the widest first.
TEST(ShortPieceMergers, EndWithTheBaselineForEveryShortPiece) {
  const auto mergers = all_short_piece_mergers();
  ASSERT_FALSE(mergers.empty());
  EXPECT_EQ(mergers.back().isa, isa::Isa::sse2);
  EXPECT_EQ(mergers.back().max_size, kMaxShortMerge);
  for (std::size_t i = 1; i < mergers.size(); ++i) EXPECT_GT(mergers[i - 1].isa, mergers[i].isa);
  EXPECT_TRUE(isa::is_usable(best_short_piece_merger().isa));
}

// The AVX-512 merge's prefetch asks for the lines that the lookups it stands for would read: its
// hashing, eight keys at a time, gives RankTable::key_lines_padded's addresses key for key, in
// order, for pieces of every size it takes, real and random, in every vocabulary.
TEST(ShortPieceKeyLines, AreTheScalarLookupsLinesOfEveryKeyOfThreeToEightBytes) {
  if (!isa::cpu_supports(isa::Isa::avx512bw)) GTEST_SKIP() << "this CPU has no AVX-512BW";
  std::mt19937 gen(11);
  const std::string text = test::read_corpus(test::corpus_names().front());
  for (const char* encoding : {"r50k_base", "cl100k_base", "o200k_base"}) {
    const RankTable& ranks = test::tokenizer(encoding).vocabulary().ranks();
    for (int round = 0; round < 3'000; ++round) {
      const std::size_t size = 2 + round % 15;
      // Zero-padded, as the kernel sees it, with 8 bytes to read after every key.
      std::uint8_t piece[16 + 8] = {};
      for (std::size_t i = 0; i < size; ++i)
        piece[i] = static_cast<std::uint8_t>(round % 3 == 0 ? gen() : text[(round * 37 + i) % text.size()]);
      simd::avx512bw::KeyLineAddresses lines;
      const std::size_t count = simd::avx512bw::short_piece_key_lines(ranks, piece, size, lines);
      std::size_t k = 0;
      for (std::size_t length = 3; length < size && length <= simd::avx512bw::kMaxKeyLineBytes; ++length)
        for (std::size_t i = 0; i + length <= size; ++i, ++k) {
          const RankTable::KeyLines expected = ranks.key_lines_padded(piece + i, length);
          ASSERT_NE(expected.filter_word, nullptr) << encoding << ": every vocabulary here has tokens of 3 to 8 bytes";
          ASSERT_LT(k, count) << encoding << ", a piece of " << size << " bytes";
          EXPECT_EQ(lines.filter_words[k], reinterpret_cast<std::uintptr_t>(expected.filter_word))
              << encoding << ", " << length << " bytes at " << i << " of " << size;
          EXPECT_EQ(lines.slots[k], reinterpret_cast<std::uintptr_t>(expected.slot))
              << encoding << ", " << length << " bytes at " << i << " of " << size;
        }
      ASSERT_EQ(count, k) << encoding << ", a piece of " << size << " bytes";
      if (HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace tokenizer
