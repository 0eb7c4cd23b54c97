// LongPieceEncoder (backtracking BPE) gives exactly BytePairEncoder's ids, and the parts it is
// built from are right: the splits are the last merges of the merge loop, and the compatibility
// test decided from merge trees agrees with running the merge loop on the two tokens' bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "byte_pair_encoder.hpp"
#include "long_piece_encoder.hpp"
#include "oracle.hpp"
#include "random_text.hpp"
#include "test_data.hpp"

namespace tokenizer {
namespace {

// The encoder under test and the exact one it must agree with, for one vocabulary.
struct EncoderPair {
  explicit EncoderPair(const RankTable& ranks) : index(ranks), reference(ranks), fast(index) {}

  LongPieceIndex index;
  BytePairEncoder reference;
  LongPieceEncoder fast;
};

EncoderPair& encoders(const std::string& encoding) {
  static std::map<std::string, std::unique_ptr<EncoderPair>> cache;
  auto& slot = cache[encoding];
  if (!slot) slot = std::make_unique<EncoderPair>(test::tokenizer(encoding).vocabulary().ranks());
  return *slot;
}

std::vector<Rank> ids_of(BytePairEncoder& encoder, std::string_view piece) {
  std::vector<Rank> ids;
  encoder.encode(piece, ids);
  return ids;
}

std::vector<Rank> ids_of(LongPieceEncoder& encoder, std::string_view piece) {
  std::vector<Rank> ids;
  encoder.encode(piece, ids);
  return ids;
}

// The slow reference for LongPieceIndex::compatible: the merge loop run on the bytes.
bool compatible_by_bpe(EncoderPair& e, Rank a, Rank b) {
  const RankTable& ranks = e.index.ranks();
  const std::string bytes = std::string(ranks.bytes(a)) + std::string(ranks.bytes(b));
  return ids_of(e.reference, bytes) == std::vector<Rank>{a, b};
}

std::string repeated(std::string_view unit, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) out += unit;
  return out;
}

std::string random_string(std::mt19937_64& rng, std::string_view alphabet, std::size_t size) {
  std::string out(size, '\0');
  for (char& c : out) c = alphabet[rng() % alphabet.size()];
  return out;
}

// Checks pieces against the reference, stopping at the first difference so that one bug gives
// one report. Counts the pieces and their bytes, which each test asserts it really ran.
class DifferentialCheck {
 public:
  explicit DifferentialCheck(EncoderPair& encoders) : e_(encoders) {}

  void check(std::string_view piece) {
    if (failed_) return;
    ++pieces_;
    bytes_ += piece.size();
    const std::vector<Rank> expected = ids_of(e_.reference, piece);
    const std::vector<Rank> actual = ids_of(e_.fast, piece);
    if (expected == actual) return;
    failed_ = true;
    SCOPED_TRACE("piece " + test::escaped_start(piece));
    test::expect_same_ids(expected, actual);
  }

  std::size_t pieces() const { return pieces_; }
  std::size_t bytes() const { return bytes_; }

 private:
  EncoderPair& e_;
  bool failed_ = false;
  std::size_t pieces_ = 0;
  std::size_t bytes_ = 0;
};

class LongPieces : public ::testing::TestWithParam<std::string> {
 protected:
  EncoderPair& pair() { return encoders(GetParam()); }
};

// All three built-in vocabularies are monotone and every token is reachable from its bytes, so
// the fast path serves them all.
TEST_P(LongPieces, BuiltinVocabularyIsUsable) {
  const LongPieceIndex& index = pair().index;
  EXPECT_TRUE(index.usable()) << index.refusal();
  EXPECT_EQ(index.refusal(), "");
  EXPECT_EQ(index.non_monotone_tokens(), 0u);
  EXPECT_EQ(index.unreachable_tokens(), 0u);
}

// Every token's split is what the merge loop itself gives: BPE on the token's bytes with only
// the shorter tokens (all the loop can form before its last merge) ends in exactly the split.
TEST_P(LongPieces, SplitsAreTheLastMergeOfTheMergeLoop) {
  const LongPieceIndex& index = pair().index;
  const RankTable& ranks = index.ranks();
  std::vector<std::vector<Rank>> by_length(ranks.max_token_size() + 1);
  for (Rank r = 0; r < ranks.rank_end(); ++r)
    if (ranks.contains(r)) by_length[ranks.bytes(r).size()].push_back(r);
  RankTable shorter_tokens;
  std::size_t checked = 0, monotone = 0;
  for (std::size_t length = 1; length < by_length.size(); ++length) {
    for (const Rank r : by_length[length]) {
      const std::string_view bytes = ranks.bytes(r);
      std::vector<Rank> expected_split{kNoRank, kNoRank};
      if (length > 1) {
        const std::vector<Rank> before_last = test::textbook_bpe(bytes, shorter_tokens);
        if (before_last.size() == 2) expected_split = before_last;
      }
      const std::vector<Rank> split{index.split_left(r), index.split_right(r)};
      ASSERT_EQ(split, expected_split) << "token " << r << " " << test::escaped(bytes);
      ASSERT_EQ(index.reachable(r), length == 1 || expected_split[0] != kNoRank) << "token " << r;
      if (length == 1 || (split[0] < r && split[1] < r)) ++monotone;
      ++checked;
    }
    for (const Rank r : by_length[length]) shorter_tokens.insert(ranks.bytes(r), r);
  }
  EXPECT_EQ(checked, ranks.size());
  EXPECT_EQ(monotone, ranks.size());
  EXPECT_FALSE(index.reachable(ranks.rank_end()));
  EXPECT_EQ(index.split_left(ranks.rank_end()), kNoRank);
}

// The compatibility test from merge trees against the merge loop, on pairs of many kinds: both
// answers must occur often, or the sample proves little.
TEST_P(LongPieces, CompatibleAgreesWithMergeLoop) {
  EncoderPair& e = pair();
  const RankTable& ranks = e.index.ranks();
  std::size_t compatible = 0, incompatible = 0;
  auto expect_agreement = [&](Rank a, Rank b) {
    const bool expected = compatible_by_bpe(e, a, b);
    ASSERT_EQ(e.index.compatible(a, b), expected)
        << "tokens " << a << " " << test::escaped(ranks.bytes(a)) << " and " << b << " " << test::escaped(ranks.bytes(b));
    ++(expected ? compatible : incompatible);
  };
  // Every pair of single bytes.
  for (unsigned x = 0; x < 256; ++x)
    for (unsigned y = 0; y < 256; ++y)
      ASSERT_NO_FATAL_FAILURE(expect_agreement(ranks.byte_rank(static_cast<std::uint8_t>(x)),
                                               ranks.byte_rank(static_cast<std::uint8_t>(y))));
  // Uniform pairs, and pairs of the low ranks, whose short tokens interact most.
  std::mt19937_64 rng(11);
  for (int i = 0; i < 60000; ++i) {
    const Rank limit = i % 2 == 0 ? ranks.rank_end() : 3000;
    const Rank a = static_cast<Rank>(rng() % limit), b = static_cast<Rank>(rng() % limit);
    if (ranks.contains(a) && ranks.contains(b)) {
      ASSERT_NO_FATAL_FAILURE(expect_agreement(a, b));
    }
  }
  // Neighbours in real encodings of long pieces, and near-neighbours: each token with the one
  // after next and with the one before it, which often do interact.
  std::string text;
  for (const std::string& name : test::corpus_names()) {
    std::string corpus = test::read_corpus(name);
    std::erase(corpus, ' ');
    text += corpus.substr(0, 20000);
  }
  text += random_string(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 20000);
  text += random_string(rng, "ab", 5000) + random_string(rng, " \n", 5000) + std::string(2000, '7');
  const std::vector<Rank> ids = ids_of(e.reference, text);
  for (std::size_t i = 0; i + 2 < ids.size(); ++i) {
    ASSERT_TRUE(e.index.compatible(ids[i], ids[i + 1])) << "neighbours " << ids[i] << " " << ids[i + 1];
    ASSERT_NO_FATAL_FAILURE(expect_agreement(ids[i], ids[i + 2]));
    ASSERT_NO_FATAL_FAILURE(expect_agreement(ids[i + 1], ids[i]));
  }
  EXPECT_GT(compatible, 10000u);
  EXPECT_GT(incompatible, 10000u);
}

TEST_P(LongPieces, UniformRunsOfEveryAsciiByte) {
  DifferentialCheck check(pair());
  std::vector<std::size_t> lengths;
  for (std::size_t n = 65; n <= 320; ++n) lengths.push_back(n);
  for (const std::size_t n : {383, 384, 385, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 4096, 5000}) lengths.push_back(n);
  for (int b = 0; b < 128; ++b)
    for (const std::size_t n : lengths) check.check(std::string(n, static_cast<char>(b)));
  EXPECT_EQ(check.pieces(), 128 * lengths.size());
}

TEST_P(LongPieces, UniformRunsOfMultibyteCharacters) {
  DifferentialCheck check(pair());
  static constexpr std::string_view kUnits[] = {"é", "я", "€", "中", "क", "ー", "😀", "👍🏽", "\r\n", "ab", "\t ", " \n", "0\xFF", "\xE2\x82"};
  for (const std::string_view unit : kUnits) {
    for (std::size_t count = 65 / unit.size() + 1; count * unit.size() <= 5000; count += count < 200 ? 1 : 97)
      check.check(repeated(unit, count));
  }
  EXPECT_GT(check.pieces(), 2000u);
}

TEST_P(LongPieces, MegabyteRuns) {
  DifferentialCheck check(pair());
  for (const char c : {'a', ' ', '7', '\n'}) {
    check.check(std::string(std::size_t{1} << 20, c));
    check.check(std::string((std::size_t{1} << 20) + 1, c));
  }
  EXPECT_EQ(check.pieces(), 8u);
}

// Pieces past PositionBits::kSmallPositions keep their dead positions in mapped memory, cleared
// between pieces by dropping its pages: long random pieces (which backtrack) one after another,
// each longer or shorter than the last, and a short one between them.
TEST_P(LongPieces, PiecesLongEnoughForMappedPositionBits) {
  DifferentialCheck check(pair());
  std::mt19937_64 rng(5);
  for (const std::size_t size : {std::size_t{300'000}, std::size_t{700'000}, std::size_t{1'000}, std::size_t{400'000}}) {
    check.check(random_string(rng, "ab", size));
    check.check(random_string(rng, "0123456789", size));
  }
  EXPECT_EQ(check.pieces(), 8u);
}

TEST_P(LongPieces, RandomStringsOverSmallAlphabets) {
  DifferentialCheck check(pair());
  static constexpr std::string_view kAlphabets[] = {
      "a",
      "ab",
      "abc",
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
      " \n",
      "0123456789",
  };
  std::mt19937_64 rng(2024);
  for (const std::string_view alphabet : kAlphabets) {
    for (int i = 0; i < 1500; ++i) {
      const std::size_t size = i % 100 == 0 ? 2000 + rng() % 3000 : 65 + rng() % 700;
      check.check(random_string(rng, alphabet, size));
    }
  }
  EXPECT_EQ(check.pieces(), 1500 * std::size(kAlphabets));
}

// Real text with the spaces taken out, so that words run into one another: many long pieces of
// ordinary tokens, in every script of the corpus.
TEST_P(LongPieces, CorpusChunksWithoutSpaces) {
  DifferentialCheck check(pair());
  std::mt19937_64 rng(77);
  for (const std::string& name : test::corpus_names()) {
    std::string text = test::read_corpus(name);
    std::erase(text, ' ');
    for (int i = 0; i < 250; ++i) {
      const std::size_t size = std::min<std::size_t>(text.size(), 65 + rng() % 4032);
      check.check(std::string_view(text).substr(rng() % (text.size() - size + 1), size));
    }
  }
  EXPECT_EQ(check.pieces(), 250 * test::corpus_names().size());
}

TEST_P(LongPieces, RandomBytes) {
  DifferentialCheck check(pair());
  std::mt19937_64 rng(5);
  for (int i = 0; i < 1500; ++i) {
    std::string piece(65 + rng() % 1500, '\0');
    for (char& c : piece) c = static_cast<char>(rng());
    check.check(piece);
  }
  EXPECT_EQ(check.pieces(), 1500u);
}

TEST_P(LongPieces, CjkAndOtherScriptRuns) {
  DifferentialCheck check(pair());
  test::RandomText random(99);
  struct Range {
    char32_t first, last;
  };
  static constexpr Range kRanges[] = {{0x4E00, 0x9FFF}, {0x4E00, 0x4EFF}, {0x3040, 0x30FF}, {0xAC00, 0xD7A3}, {0x915, 0x94D}, {0x400, 0x4FF}};
  for (const Range& r : kRanges) {
    for (int i = 0; i < 300; ++i) {
      std::string piece;
      const std::size_t size = 65 + random.below(3000);
      while (piece.size() < size) test::append_utf8(piece, static_cast<char32_t>(random.between(r.first, r.last)));
      check.check(piece);
    }
  }
  EXPECT_EQ(check.pieces(), 300 * std::size(kRanges));
}

// Pieces spelled by random tokens of the vocabulary, short ones favoured: every kind of token
// boundary, and many spots where a longer token straddles two of them.
TEST_P(LongPieces, ConcatenatedRandomTokens) {
  EncoderPair& e = pair();
  DifferentialCheck check(e);
  const RankTable& ranks = e.index.ranks();
  std::mt19937_64 rng(31);
  for (int i = 0; i < 1500; ++i) {
    std::string piece;
    const std::size_t size = 65 + rng() % 1500;
    const Rank limit = i % 2 == 0 ? ranks.rank_end() : 2000;
    while (piece.size() < size) piece += ranks.bytes(static_cast<Rank>(rng() % limit));
    check.check(piece);
  }
  EXPECT_EQ(check.pieces(), 1500u);
}

// Pieces of any length, whole tokens among them, come out as BytePairEncoder gives them too.
TEST_P(LongPieces, ShortPiecesAndWholeTokens) {
  EncoderPair& e = pair();
  DifferentialCheck check(e);
  const RankTable& ranks = e.index.ranks();
  std::mt19937_64 rng(3);
  for (int i = 0; i < 3000; ++i) check.check(random_string(rng, "abcdefghijklmnopqrstuvwxyz 0123", 1 + rng() % 64));
  for (Rank r = 0; r < ranks.rank_end(); r += 7) {
    check.check(ranks.bytes(r));
    check.check(std::string(ranks.bytes(r)) + std::string(ranks.bytes(r)));
  }
  check.check("");
  EXPECT_GT(check.pieces(), 3000 + 2 * (ranks.size() / 7));
}

// The tables are built on first use; threads that race to it all get them whole.
TEST_P(LongPieces, FirstUseFromManyThreads) {
  const RankTable& ranks = pair().index.ranks();
  LongPieceIndex index(ranks);
  const std::string piece = repeated("abcab", 3000) + std::string(5000, ' ');
  const std::vector<Rank> expected = ids_of(pair().reference, piece);
  std::vector<std::vector<Rank>> results(4);
  std::vector<std::thread> threads;
  for (auto& result : results)
    threads.emplace_back([&index, &piece, &result] {
      LongPieceEncoder encoder(index);
      encoder.encode(piece, result);
    });
  for (auto& t : threads) t.join();
  for (const auto& result : results) test::expect_same_ids(expected, result);
}

// Through a Tokenizer, long pieces take the merge queue until about 2 MiB of them have been
// seen and the linear-time path after: the ids must not change at the switch.
TEST_P(LongPieces, TokenizerGivesTheSameIdsBeforeAndAfterTheIndexIsBuilt) {
  const Tokenizer fresh(Vocabulary::builtin(GetParam()));
  ASSERT_FALSE(fresh.long_piece_index().worth_using(0));
  std::mt19937 rng(11);
  std::string mixed;
  while (mixed.size() < (300u << 10)) mixed += std::string(65 + rng() % 3000, "ab "[rng() % 3]) + "x";
  const std::string inputs[] = {std::string(1 << 20, 'a'), mixed, std::string(1 << 20, ' '), mixed,
                                std::string(1 << 20, 'a')};
  std::vector<std::vector<Rank>> before;
  for (const std::string& text : inputs) before.push_back(fresh.encode_ordinary(text, *find_encoder("serial")));
  ASSERT_TRUE(fresh.long_piece_index().worth_using(0)) << "3 MiB of long pieces should have built the index";
  for (std::size_t i = 0; i < std::size(inputs); ++i) {
    SCOPED_TRACE("input " + std::to_string(i));
    for (const Encoder* encoder : supported_encoders())
      test::expect_same_ids(before[i], fresh.encode_ordinary(inputs[i], *encoder));
  }
}

INSTANTIATE_TEST_SUITE_P(Builtin, LongPieces, ::testing::ValuesIn(Vocabulary::builtin_names()));

// A vocabulary small enough to check by hand: every byte b has rank b, then a few merges.
RankTable tiny_ranks(std::initializer_list<std::pair<std::string_view, Rank>> merges) {
  RankTable ranks;
  for (unsigned b = 0; b < 256; ++b) ranks.insert(std::string(1, static_cast<char>(b)), b);
  for (const auto& [token, rank] : merges) ranks.insert(token, rank);
  return ranks;
}

Rank byte(char c) { return static_cast<std::uint8_t>(c); }

TEST(LongPieceIndex, SplitsAndCompatibilityOfATinyVocabulary) {
  const RankTable ranks = tiny_ranks({{"ab", 256}, {"cd", 257}, {"abcd", 258}, {"bc", 260}, {"aa", 261}, {"bcd", 262}, {"xyz", 263}});
  LongPieceIndex index(ranks);
  ASSERT_TRUE(index.usable()) << index.refusal();
  EXPECT_EQ(index.unreachable_tokens(), 1u);  // xyz: no pair inside it is a token
  EXPECT_FALSE(index.reachable(263));
  EXPECT_EQ(index.split_left(263), kNoRank);
  EXPECT_EQ(index.split_left(258), 256u);  // in "abcd" ab (256) and cd (257) form first
  EXPECT_EQ(index.split_right(258), 257u);
  EXPECT_EQ(index.split_left(262), byte('b'));  // in "bcd" cd (257) beats bc (260)
  EXPECT_EQ(index.split_right(262), 257u);
  EXPECT_EQ(index.split_left(byte('a')), kNoRank);
  EXPECT_EQ(index.pair_merge(byte('a'), byte('a')), 261u);
  EXPECT_EQ(index.pair_merge(byte('b'), byte('c')), 260u);
  EXPECT_EQ(index.pair_merge(byte('b'), 257), 262u);
  EXPECT_EQ(index.pair_merge(256, byte('c')), kNoRank);  // "abc" is no token
  EXPECT_TRUE(index.compatible(256, byte('c')));          // "abc" -> ab c
  EXPECT_FALSE(index.compatible(byte('a'), 260));         // "abc" -> ab c, not a bc
  EXPECT_TRUE(index.compatible(261, byte('a')));          // "aaa" -> aa a
  EXPECT_FALSE(index.compatible(byte('a'), 261));         // the leftmost aa wins
  EXPECT_FALSE(index.compatible(256, 257));               // "abcd" is a token
  EXPECT_TRUE(index.compatible(257, 256));                // "cdab" -> cd ab
  EXPECT_FALSE(index.compatible(byte('b'), 257));         // "bcd" is a token
  EXPECT_FALSE(index.compatible(260, byte('d')));         // "bcd": cd forms first, then bcd
  EXPECT_TRUE(index.compatible(byte('a'), 256));          // "aab": ab (256) beats aa (261)
  EXPECT_FALSE(index.compatible(261, byte('b')));         // so aa never forms in "aab"
  EXPECT_FALSE(index.compatible(263, byte('a')));         // xyz is unreachable

  BytePairEncoder reference(ranks);
  LongPieceEncoder encoder(index);
  for (const std::string& piece : {std::string("xyz"), repeated("xyz", 30), repeated("abcd", 40) + "bcdaaa",
                                   repeated("aab", 50), std::string(99, 'a')})
    test::expect_same_ids(ids_of(reference, piece), ids_of(encoder, piece));
}

TEST(LongPieceIndex, RefusesANonMonotoneVocabulary) {
  // "abc" merges ab (257) with c last, but ranks below ab.
  const RankTable ranks = tiny_ranks({{"abc", 256}, {"ab", 257}});
  LongPieceIndex index(ranks);
  EXPECT_FALSE(index.usable());
  EXPECT_EQ(index.non_monotone_tokens(), 1u);
  EXPECT_EQ(index.refusal(), "1 tokens are not monotone (a split part ranks at or above the token)");
  EXPECT_EQ(index.split_left(256), 257u);
  LongPieceEncoder encoder(index);
  std::vector<Rank> ids;
  EXPECT_THROW(encoder.encode(std::string(100, 'a'), ids), std::logic_error);
  EXPECT_THROW(index.compatible(257, byte('c')), std::logic_error);
}

TEST(LongPieceIndex, RefusesAVocabularyWithoutEveryByte) {
  RankTable ranks;
  for (unsigned b = 0; b < 255; ++b) ranks.insert(std::string(1, static_cast<char>(b)), b);
  LongPieceIndex index(ranks);
  EXPECT_FALSE(index.usable());
  EXPECT_EQ(index.refusal(), "byte 0xFF has no rank");
}

}  // namespace
}  // namespace tokenizer
