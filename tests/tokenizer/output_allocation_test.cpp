// The parallel encoders allocate an empty output once, at its final size: grown by doubling, it
// held an old and a new copy of its ids at once, beside the chunks' own (simd_parallel peaked at
// 409 MB on a 100 MB file, 224 MB since). Appended to, it still grows geometrically.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <string>
#include <vector>

#include "test_data.hpp"
#include "tokenizer/encoder_registry.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {
namespace {

TEST(ParallelEncoders, AllocateTheOutputOnce) {
  const Tokenizer& tok = test::tokenizer("cl100k_base");
  // A megabyte of English: chunks for every thread, and every chunk's chain meets its neighbour's.
  const std::string text = test::read_corpus("en_shakespeare");
  std::vector<Rank> serial;
  encode_serial(tok, text, serial);
  // Two threads even on a machine with one: with one, the encoders take the single-threaded path.
  tbb::task_arena two_threads(2);
  for (const Encoder* encoder : supported_encoders()) {
    if (!encoder->multithreaded()) continue;
    SCOPED_TRACE(encoder->name);
    std::vector<Rank> out;
    two_threads.execute([&] { encoder->encode(tok, text, out); });
    test::expect_same_ids(serial, out);
    EXPECT_EQ(out.capacity(), out.size());
  }
}

// Tokenizer::encode appends the texts between special tokens to one vector: growing it to an
// exact fit for each would copy every earlier id each time.
TEST(ParallelEncoders, AppendingGrowsGeometrically) {
  const Tokenizer& tok = test::tokenizer("cl100k_base");
  const std::string text = test::read_corpus("en_shakespeare").substr(0, 256 * 1024);
  constexpr int kTexts = 32;
  tbb::task_arena two_threads(2);
  for (const Encoder* encoder : supported_encoders()) {
    if (!encoder->multithreaded()) continue;
    SCOPED_TRACE(encoder->name);
    std::vector<Rank> out;
    int growths = 0;
    for (int i = 0; i < kTexts; ++i) {
      const std::size_t capacity = out.capacity();
      two_threads.execute([&] { encoder->encode(tok, text, out); });
      growths += out.capacity() != capacity;
    }
    // 1 + log2(32) doublings at most; an exact fit would grow 32 times.
    EXPECT_LE(growths, 6);
  }
}

}  // namespace
}  // namespace tokenizer
