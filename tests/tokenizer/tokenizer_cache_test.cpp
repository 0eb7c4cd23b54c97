// The Tokenizer's piece cache and piece memos (TokenizerOptions) change no id in any regime: a
// text encoded cold, again warm, after other text, or with either off; within their bounds when
// far more distinct pieces pass than they hold; and under concurrent encode_batch, with more
// threads than memos. Text the memos cannot hold goes to the bulk memos, with the same ids.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "byte_pair_encoder.hpp"
#include "piece_memo.hpp"
#include "test_data.hpp"
#include "tokenizer/encoder_registry.hpp"
#include "tokenizer/piece_scanners.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {
namespace {

// Words of random lowercase letters with random spaces and punctuation: almost every word is no
// token, so BPE merges it and the cache stores it, and few recur.
std::string random_words(std::size_t bytes, unsigned seed) {
  std::mt19937 gen(seed);
  std::string text;
  while (text.size() < bytes) {
    text += gen() % 8 == 0 ? ", " : " ";
    for (std::size_t n = 3 + gen() % 10; n > 0; --n) text += static_cast<char>('a' + gen() % 26);
  }
  return text;
}

// Words of 6 to 15 random Devanagari letters (U+0915-U+0939, three bytes each), a space before
// each: pieces of 19 to 46 bytes, few of them tokens, and few recurring.
std::string random_long_words(std::size_t bytes, unsigned seed) {
  std::mt19937 gen(seed);
  std::string text;
  while (text.size() < bytes) {
    text += ' ';
    for (std::size_t n = 6 + gen() % 10; n > 0; --n) {
      const unsigned letter = 0x15 + gen() % 0x25;  // U+0900 + letter
      text += static_cast<char>(0xE0);
      text += static_cast<char>(0xA4);
      text += static_cast<char>(0x80 + letter);
    }
  }
  return text;
}

// Random base64: most of its bytes lie in letter runs that no memo has met.
std::string random_base64(std::size_t bytes, unsigned seed) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::mt19937 gen(seed);
  std::string text(bytes, '\0');
  for (char& c : text) c = kDigits[gen() % 64];
  return text;
}

// Whether an encoder of `tokenizer` still remembers after the pieces of `text`, one by one.
bool remembering_after(const Tokenizer& tokenizer, std::string_view text) {
  BytePairEncoder bpe(tokenizer);
  std::vector<Rank> ids;
  tokenizer.pretokenizer().scan_from(text, 0, [&](std::size_t start, std::size_t end) {
    bpe.encode(text, start, end, ids);
    return true;
  });
  return bpe.remembering();
}

// Whether an encoder of `tokenizer` still remembers after the pieces of the first `bytes` of
// `text`, handed over in batches as the vector scanner hands them.
bool remembering_after_batches(const Tokenizer& tokenizer, std::string_view text, std::size_t bytes) {
  BytePairEncoder bpe(tokenizer);
  std::vector<std::size_t> ends;
  tokenizer.pretokenizer().scan_from(text, 0, [&](std::size_t, std::size_t end) {
    ends.push_back(end);
    return end < bytes;
  });
  std::vector<Rank> ids;
  for (std::size_t j = 0, start = 0; j < ends.size(); j += BytePairEncoder::kMaxBatch) {
    const std::size_t n = std::min(BytePairEncoder::kMaxBatch, ends.size() - j);
    bpe.encode_pieces(text, start, ends.data() + j, n, ids);
    start = ends[j + n - 1];
  }
  return bpe.remembering();
}

// A memo that lacks most of the bytes of window after window (random base64) is put off for the
// rest of the call; one that lacks less is kept, English's first windows included; ids never
// change, whether the memo goes off between pieces or in the middle of a vector scanner's batch.
TEST(TokenizerCache, AMemoMissingMostOfTheTextIsPutOffForTheRestOfTheCall) {
  const Tokenizer& shared = test::tokenizer("cl100k_base");
  const Tokenizer memo_only(shared, TokenizerOptions{.piece_cache_bytes = 0});
  const std::string base64 = random_base64(256 * 1024, 1);
  const std::string english = test::read_corpus("en_shakespeare");
  EXPECT_FALSE(remembering_after(memo_only, base64));
  EXPECT_TRUE(remembering_after(memo_only, english));
  const Tokenizer fresh(shared, TokenizerOptions{.piece_cache_bytes = 0});
  EXPECT_TRUE(remembering_after(fresh, std::string_view(english).substr(0, 256 * 1024)));
  EXPECT_TRUE(remembering_after(memo_only, "short"));

  const Tokenizer off(shared, TokenizerOptions{0, 0});
  const std::string mixed = base64 + english.substr(0, 100000) + random_base64(100000, 2);
  const std::vector<Rank> expected = off.encode_ordinary(mixed, *find_encoder("serial"));
  for (const Encoder* encoder : supported_encoders()) {
    SCOPED_TRACE(encoder->name);
    const Tokenizer tokenizer(shared, TokenizerOptions{.piece_cache_bytes = 0});
    test::expect_same_ids(expected, tokenizer.encode_ordinary(mixed, *encoder));
    test::expect_same_ids(expected, tokenizer.encode_ordinary(mixed, *encoder));
  }
}

// Text that the memo cannot hold (random base64) goes to the bulk memo, made then, with the ids of
// a tokenizer without either, cold, warm, after other text and with the bulk memo off; English
// met afterwards by the same thread keeps its memo; and once a thread has a bulk memo, one lacking
// window puts its memo off.
TEST(TokenizerCache, TextTheMemoCannotHoldGoesToTheBulkMemoWithTheSameIds) {
  for (const std::string encoding : {"cl100k_base", "o200k_base"}) {
    const Tokenizer& shared = test::tokenizer(encoding);
    const Tokenizer off(shared, TokenizerOptions{0, 0, 0, 0, 0});
    const std::string base64 = random_base64(512 * 1024, 3);
    const std::string other = random_base64(200 * 1024, 4) + test::read_corpus("udhr_eng");
    const std::vector<Rank> expected = off.encode_ordinary(base64, *find_encoder("serial"));
    const std::vector<Rank> expected_other = off.encode_ordinary(other, *find_encoder("serial"));
    for (const Encoder* encoder : supported_encoders()) {
      SCOPED_TRACE(encoding + " " + std::string(encoder->name));
      const Tokenizer fresh(shared, TokenizerOptions{});
      test::expect_same_ids(expected, fresh.encode_ordinary(base64, *encoder));  // cold
      test::expect_same_ids(expected, fresh.encode_ordinary(base64, *encoder));  // warm
      test::expect_same_ids(expected_other, fresh.encode_ordinary(other, *encoder));
      test::expect_same_ids(expected, fresh.encode_ordinary(base64, *encoder));
      // Every encoder turns to it, the scalar scanner's handing its pieces over in batches once
      // the memo is off.
      const std::size_t bulk_bytes = BulkPieceMemo::memory_for(TokenizerOptions::kDefaultBulkPieceMemoBytes);
      EXPECT_GE(fresh.piece_memo_bytes(), bulk_bytes);
      const Tokenizer without(shared, TokenizerOptions{.bulk_piece_memo_bytes = 0});
      test::expect_same_ids(expected, without.encode_ordinary(base64, *encoder));
      test::expect_same_ids(expected, without.encode_ordinary(base64, *encoder));
      EXPECT_LT(without.piece_memo_bytes(), bulk_bytes);
    }
  }
  // A thread that has a bulk memo puts its memo off after one lacking window: 100 KiB of base64
  // close one window of 64 KiB, not two.
  const std::string short_base64 = random_base64(100 * 1024, 6);
  const Tokenizer first_time(test::tokenizer("cl100k_base"), TokenizerOptions{});
  EXPECT_TRUE(remembering_after(first_time, short_base64));
  first_time.encode_ordinary(random_base64(1 << 20, 7), *find_encoder("simd"));
  ASSERT_TRUE(first_time.piece_memos()->lease().has_bulk());
  EXPECT_FALSE(remembering_after(first_time, short_base64));
  // English, then base64 twice (its first windows fill the memo with base64's pieces), then
  // English again: its memo stays on.
  const Tokenizer met_base64(test::tokenizer("cl100k_base"), TokenizerOptions{});
  const std::string english = test::read_corpus("en_shakespeare");
  met_base64.encode_ordinary(english, *find_encoder("simd"));
  EXPECT_FALSE(met_base64.piece_memos()->lease().has_bulk());
  for (int pass = 0; pass < 2; ++pass) met_base64.encode_ordinary(random_base64(1 << 20, 5), *find_encoder("simd"));
  EXPECT_TRUE(met_base64.piece_memos()->lease().has_bulk());
  EXPECT_TRUE(remembering_after(met_base64, english));
  EXPECT_TRUE(remembering_after(met_base64, english));
}

// A long text that a thread met before in its bulk memo (random base64 again) puts the memo off
// within its first 4 KiB; English that the memo holds, and base64 never met, keep it there, the
// same thread's bulk memo notwithstanding.
TEST(TokenizerCache, TextMetBeforeInTheBulkMemoTurnsToItWithinItsFirstWindow) {
  const Tokenizer tokenizer(test::tokenizer("cl100k_base"), TokenizerOptions{});
  const std::string base64 = random_base64(1 << 20, 8);
  const std::string english = test::read_corpus("en_shakespeare");
  const Encoder& simd = *find_encoder("simd");
  tokenizer.encode_ordinary(english, simd);
  for (int pass = 0; pass < 2; ++pass) tokenizer.encode_ordinary(base64, simd);
  ASSERT_TRUE(tokenizer.piece_memos()->lease().has_bulk());
  EXPECT_TRUE(remembering_after_batches(tokenizer, base64, 2048));  // the trial's window still open
  EXPECT_FALSE(remembering_after_batches(tokenizer, base64, 8192));
  for (int pass = 0; pass < 2; ++pass) tokenizer.encode_ordinary(english, simd);
  EXPECT_TRUE(remembering_after_batches(tokenizer, english, 8192));
  EXPECT_TRUE(remembering_after_batches(tokenizer, random_base64(1 << 20, 9), 8192));
  // The text must be long enough to be worth it: 60 KiB of base64 met before keep the memo.
  const std::string short_base64 = base64.substr(0, 60 * 1024);
  EXPECT_TRUE(remembering_after_batches(tokenizer, short_base64, 8192));
  // 2 KiB of base64 met before, then English the memo holds: the bulk memo holds the pieces the
  // trial asks for, but the memo lacks under a quarter of the window's bytes, and stays on.
  const std::string mixed = base64.substr(0, 2048) + english;
  for (int pass = 0; pass < 2; ++pass) tokenizer.encode_ordinary(mixed, simd);
  EXPECT_TRUE(remembering_after_batches(tokenizer, mixed, 8192));
}

// A pattern that is no tiktoken pattern takes its pieces from the regex engine, which scans only
// from a text's start: where the memo goes off in the middle of a text (English, then random
// base64), the scalar chain goes on piece by piece rather than resuming in batches.
TEST(TokenizerCache, UnderARegexPatternTheMemoGoingOffMidTextKeepsTheIds) {
  const std::filesystem::path ranks = test::corpus_dir().parent_path() / "vocab" / "cl100k_base.tiktoken";
  const Tokenizer regex_kind(Vocabulary::load(ranks, "cl100k_regex", std::string(kCl100kPattern) + "|x", {}));
  ASSERT_EQ(regex_kind.pretokenizer().kind(), PatternKind::regex);
  const std::string text = test::read_corpus("en_shakespeare").substr(0, 200 * 1024) + random_base64(512 * 1024, 10);
  const Tokenizer off(test::tokenizer("cl100k_base"), TokenizerOptions{0, 0, 0, 0, 0});
  const std::vector<Rank> expected = off.encode_ordinary(text, *find_encoder("serial"));
  for (const Encoder* encoder : supported_encoders()) {
    SCOPED_TRACE(encoder->name);
    test::expect_same_ids(expected, regex_kind.encode_ordinary(text, *encoder));
    test::expect_same_ids(expected, regex_kind.encode_ordinary(text, *encoder));
  }
}

TEST(TokenizerCache, DefaultIsOnAndZeroTurnsItOff) {
  const Tokenizer& shared = test::tokenizer("cl100k_base");
  EXPECT_EQ(Tokenizer(shared, TokenizerOptions{}).piece_cache_bytes(), TokenizerOptions::kDefaultPieceCacheBytes);
  const Tokenizer off(shared, TokenizerOptions{0});
  EXPECT_EQ(off.piece_cache(), nullptr);
  EXPECT_EQ(off.piece_cache_bytes(), 0u);
  // Below one entry is off as well.
  EXPECT_EQ(Tokenizer(shared, TokenizerOptions{63}).piece_cache(), nullptr);
}

TEST(TokenizerCache, MemosAreMadeOnFirstUseOneAThreadAndZeroTurnsThemOff) {
  const Tokenizer& shared = test::tokenizer("cl100k_base");
  const Tokenizer fresh(shared, TokenizerOptions{});
  EXPECT_NE(fresh.piece_memos(), nullptr);
  EXPECT_EQ(fresh.piece_memo_bytes(), 0u);
  fresh.encode_ordinary("Hello, world");
  fresh.encode_ordinary("and again");
  EXPECT_EQ(fresh.piece_memo_bytes(), PieceMemo::memory_for(TokenizerOptions::kDefaultPieceMemoBytes,
                                                            TokenizerOptions::kDefaultLongPieceMemoBytes));
  const Tokenizer off(shared, TokenizerOptions{.piece_memo_bytes = 0});
  EXPECT_EQ(off.piece_memos(), nullptr);
  off.encode_ordinary("Hello, world");
  EXPECT_EQ(off.piece_memo_bytes(), 0u);
}

TEST(TokenizerCache, ColdWarmAfterOtherTextAndOffGiveTiktokensIds) {
  for (const std::string encoding : {"cl100k_base", "o200k_base"}) {
    const std::string text = test::read_corpus("en_shakespeare");
    const std::vector<Rank> golden = test::read_golden("en_shakespeare." + encoding + ".u32");
    const std::string other = test::read_corpus("code_sqlite3_h");
    for (const Encoder* encoder : supported_encoders()) {
      SCOPED_TRACE(encoding + " " + std::string(encoder->name));
      const Tokenizer off(test::tokenizer(encoding), TokenizerOptions{0, 0, 0, 0});
      test::expect_same_ids(golden, off.encode_ordinary(text, *encoder));
      const Tokenizer memo_only(test::tokenizer(encoding), TokenizerOptions{.piece_cache_bytes = 0});
      test::expect_same_ids(golden, memo_only.encode_ordinary(text, *encoder));
      test::expect_same_ids(golden, memo_only.encode_ordinary(text, *encoder));
      const Tokenizer cached(test::tokenizer(encoding), TokenizerOptions{});
      test::expect_same_ids(golden, cached.encode_ordinary(text, *encoder));  // cold
      test::expect_same_ids(golden, cached.encode_ordinary(text, *encoder));  // warm
      const Tokenizer after_other(test::tokenizer(encoding), TokenizerOptions{});
      after_other.encode_ordinary(other, *encoder);
      test::expect_same_ids(golden, after_other.encode_ordinary(text, *encoder));
    }
  }
}

TEST(TokenizerCache, StaysWithinItsBoundPastManyMorePiecesThanItHolds) {
  // 256 cache entries; 512 short memo entries, 256 long; 16 KiB for long pieces; a bulk memo of
  // 112 buckets of four slots and 2 KiB for long pieces.
  constexpr std::size_t kBound = 16 * 1024;
  const Tokenizer& shared = test::tokenizer("cl100k_base");
  const Tokenizer small(shared, TokenizerOptions{kBound, kBound, kBound, TokenizerOptions::kDefaultHugePieceCacheBytes, kBound});
  const Tokenizer off(shared, TokenizerOptions{0, 0, 0, 0});
  EXPECT_EQ(small.piece_cache_bytes(), kBound);
  for (unsigned seed = 1; seed <= 4; ++seed) {
    // Tens of thousands of distinct words; then as many of more than 16 bytes; then random base64,
    // which the bulk memo takes.
    for (const std::string& text :
         {random_words(256 * 1024, seed), random_long_words(256 * 1024, seed), random_base64(256 * 1024, seed)}) {
      for (const Encoder* encoder : supported_encoders())
        test::expect_same_ids(off.encode_ordinary(text, *find_encoder("serial")), small.encode_ordinary(text, *encoder));
      EXPECT_EQ(small.piece_cache_bytes(), kBound);
      EXPECT_LE(small.piece_memo_bytes(), std::thread::hardware_concurrency() * 3 * kBound);
    }
  }
}

// Text whose words are long pieces (more than 16 bytes: words of Devanagari letters, three bytes
// each), cold, warm, after other text, with a long-piece memo far smaller than its pieces, and
// without one: the ids of the memo-less, cache-less tokenizer.
TEST(TokenizerCache, LongPiecesGiveTheSameIdsColdWarmAndPastTheMemosBound) {
  for (const std::string encoding : {"cl100k_base", "o200k_base"}) {
    const Tokenizer& shared = test::tokenizer(encoding);
    const Tokenizer off(shared, TokenizerOptions{0, 0, 0, 0});
    const std::string text = test::read_corpus("udhr_hin") + test::read_corpus("udhr_cmn_hans") + random_long_words(64 * 1024, 7);
    const std::vector<Rank> expected = off.encode_ordinary(text, *find_encoder("serial"));
    for (const Encoder* encoder : supported_encoders()) {
      SCOPED_TRACE(encoding + " " + std::string(encoder->name));
      const Tokenizer fresh(shared, TokenizerOptions{});
      test::expect_same_ids(expected, fresh.encode_ordinary(text, *encoder));  // cold
      test::expect_same_ids(expected, fresh.encode_ordinary(text, *encoder));  // warm
      const Tokenizer tiny(shared, TokenizerOptions{.long_piece_memo_bytes = LongPieceMemo::kMinBytes});
      test::expect_same_ids(expected, tiny.encode_ordinary(text, *encoder));
      test::expect_same_ids(expected, tiny.encode_ordinary(text, *encoder));
      const Tokenizer without(shared, TokenizerOptions{.long_piece_memo_bytes = 0});
      test::expect_same_ids(expected, without.encode_ordinary(text, *encoder));
    }
  }
}

// Many threads store into and read from one small cache at once, each with a small memo of its
// own or, where there are more threads than memos, none: every document's ids still equal those
// of a serial run without either, in every round.
TEST(TokenizerCache, ConcurrentBatchesGiveSerialIds) {
  const Tokenizer& shared = test::tokenizer("cl100k_base");
  const Tokenizer tiny(shared, TokenizerOptions{1024, 1024});  // 16 entries: writers collide constantly
  const Tokenizer off(shared, TokenizerOptions{0, 0});
  std::vector<std::string> texts;
  for (unsigned seed = 0; seed < 64; ++seed) texts.push_back(random_words(4096, seed % 8));  // some repeat
  texts.push_back(test::read_corpus("udhr_eng"));
  std::vector<std::string_view> views(texts.begin(), texts.end());
  std::vector<std::vector<Rank>> expected;
  for (std::string_view text : views) expected.push_back(off.encode_ordinary(text, *find_encoder("serial")));
  for (const Encoder* encoder : supported_encoders()) {
    for (int round = 0; round < 3; ++round) {
      // More threads than the machine has, so more than the memos: some encode without one.
      std::vector<std::vector<Rank>> got;
      tbb::task_arena(static_cast<int>(2 * std::thread::hardware_concurrency() + 2)).execute([&] {
        got = tiny.encode_batch(views, *encoder);
      });
      ASSERT_EQ(got.size(), expected.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        SCOPED_TRACE(std::string(encoder->name) + " document " + std::to_string(i));
        test::expect_same_ids(expected[i], got[i]);
      }
    }
  }
}

}  // namespace
}  // namespace tokenizer
