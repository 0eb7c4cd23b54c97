// HugePieceCache alone: a piece is found only where every byte matches, the records stay within
// the bound (the least lately used forgotten first, a record larger than the bound never kept),
// and the Tokenizer's cache gives the ids of a tokenizer without it, cold, warm and under
// concurrent batches, for every encoder.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <string>
#include <thread>
#include <vector>

#include "huge_piece_cache.hpp"
#include "test_data.hpp"
#include "tokenizer/encoder_registry.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {
namespace {

constexpr std::size_t kPiece = HugePieceCache::kMinPiece;

// A piece of kPiece bytes of `fill`, `mark` at byte `at`.
std::string piece(char fill, std::size_t at = 0, char mark = 'x') {
  std::string p(kPiece, fill);
  p[at] = mark;
  return p;
}

std::vector<Rank> found(HugePieceCache& cache, const std::string& p) {
  std::vector<Rank> out{7};  // ids already there stay
  if (!cache.append(p, out)) return {};
  return out;
}

TEST(HugePieceCache, FindsAPieceOnlyWhereEveryByteMatches) {
  HugePieceCache cache(1 << 20);
  const std::vector<Rank> ids{1, 2, 3};
  cache.store(piece('a', 10), ids);
  EXPECT_EQ(found(cache, piece('a', 10)), (std::vector<Rank>{7, 1, 2, 3}));
  EXPECT_TRUE(found(cache, piece('a', 11)).empty());           // same size, one byte moved
  EXPECT_TRUE(found(cache, piece('a', kPiece - 1)).empty());   // differs in its last byte only
  EXPECT_TRUE(found(cache, piece('a', 10) + "a").empty());     // one byte longer
  EXPECT_TRUE(found(cache, piece('a', 10).substr(1)).empty()); // one byte shorter
  EXPECT_EQ(cache.memory_bytes(), kPiece + ids.size() * sizeof(Rank));
}

TEST(HugePieceCache, ForgetsTheLeastLatelyUsedToStayWithinItsBound) {
  const std::vector<Rank> ids(100, 5);
  const std::size_t record = kPiece + ids.size() * sizeof(Rank);
  HugePieceCache cache(2 * record + record / 2);  // room for two records
  cache.store(piece('a'), ids);
  cache.store(piece('b'), ids);
  EXPECT_FALSE(found(cache, piece('a')).empty());  // a is now used later than b
  cache.store(piece('c'), ids);
  EXPECT_LE(cache.memory_bytes(), 2 * record + record / 2);
  EXPECT_FALSE(found(cache, piece('a')).empty());
  EXPECT_TRUE(found(cache, piece('b')).empty());
  EXPECT_FALSE(found(cache, piece('c')).empty());
  for (char fill = 'd'; fill <= 'z'; ++fill) {
    cache.store(piece(fill), ids);
    EXPECT_EQ(cache.memory_bytes(), 2 * record);
  }
}

TEST(HugePieceCache, NeverKeepsARecordLargerThanItsBound) {
  HugePieceCache cache(kPiece);  // the bytes fit, the bytes and one id do not
  cache.store(piece('a'), std::vector<Rank>{1});
  EXPECT_EQ(cache.memory_bytes(), 0u);
  EXPECT_TRUE(found(cache, piece('a')).empty());
}

// Texts with pieces of 64 KiB to a megabyte: one letter, random letters, spaces before a letter,
// spaces around a newline, upper case then lower case.
std::vector<std::string> huge_texts() {
  std::string random_letters(300 * 1024, 'a');
  unsigned state = 1;
  for (char& c : random_letters) c = static_cast<char>('a' + (state = state * 1103515245u + 12345u) / 65536 % 26);
  return {std::string(1 << 20, 'a'),
          "The start " + random_letters + " and the end",
          std::string(kPiece + 1, ' ') + "x",  // the run less its last space: kPiece bytes
          std::string(200 * 1024, ' ') + "\n" + std::string(100 * 1024, ' ') + "y",
          std::string(kPiece + 1, 'Q') + std::string(kPiece, 'q')};
}

// Cold and warm, with the cache, with one too small for most of their pieces, and without: the
// same ids.
TEST(HugePieceCache, TokenizersGiveTheSameIdsWithAndWithoutItColdAndWarm) {
  const Tokenizer& shared = test::tokenizer("cl100k_base");
  const Tokenizer off(shared, TokenizerOptions{.huge_piece_cache_bytes = 0});
  EXPECT_EQ(off.huge_piece_cache(), nullptr);
  for (const std::string& text : huge_texts()) {
    const std::vector<Rank> expected = off.encode_ordinary(text, *find_encoder("serial"));
    for (const Encoder* encoder : supported_encoders()) {
      SCOPED_TRACE(std::string(encoder->name) + ", " + std::to_string(text.size()) + " bytes");
      const Tokenizer cached(shared, TokenizerOptions{});
      test::expect_same_ids(expected, cached.encode_ordinary(text, *encoder));  // cold
      EXPECT_GT(cached.huge_piece_cache_bytes(), 0u);
      test::expect_same_ids(expected, cached.encode_ordinary(text, *encoder));  // warm
      const Tokenizer small(shared, TokenizerOptions{.huge_piece_cache_bytes = 2 * kPiece});
      test::expect_same_ids(expected, small.encode_ordinary(text, *encoder));
      test::expect_same_ids(expected, small.encode_ordinary(text, *encoder));
      EXPECT_LE(small.huge_piece_cache_bytes(), 2 * kPiece);
    }
  }
}

// Many threads look up and store at once, documents that repeat and documents that differ, in a
// cache that holds about two of them: every document's ids are those of a tokenizer without it.
TEST(HugePieceCache, ConcurrentBatchesGiveTheIdsOfATokenizerWithoutIt) {
  const Tokenizer& shared = test::tokenizer("cl100k_base");
  const Tokenizer off(shared, TokenizerOptions{.huge_piece_cache_bytes = 0});
  std::vector<std::string> texts;
  for (int k = 0; k < 24; ++k) texts.push_back(std::string(kPiece + 4096 * (k % 6), static_cast<char>('a' + k % 6)));
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  std::vector<std::vector<Rank>> expected;
  for (std::string_view text : views) expected.push_back(off.encode_ordinary(text, *find_encoder("serial")));
  for (const Encoder* encoder : supported_encoders()) {
    const Tokenizer small(shared, TokenizerOptions{.huge_piece_cache_bytes = 3 * kPiece});
    for (int round = 0; round < 2; ++round) {
      std::vector<std::vector<Rank>> got;
      tbb::task_arena(static_cast<int>(2 * std::thread::hardware_concurrency() + 2)).execute([&] {
        got = small.encode_batch(views, *encoder);
      });
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        SCOPED_TRACE(std::string(encoder->name) + " document " + std::to_string(i));
        test::expect_same_ids(expected[i], got[i]);
      }
      EXPECT_LE(small.huge_piece_cache_bytes(), 3 * kPiece);
    }
  }
}

}  // namespace
}  // namespace tokenizer
