// The flop counts behind every GFLOPS figure, and the platform-independent inputs of the tests and
// the tuner.
#include <gtest/gtest.h>

#include <algorithm>

#include "attention/flop_count.hpp"
#include "attention/uniform_values.hpp"

namespace attention {
namespace {

TEST(FlopCount, FlashAttentionsCountHalvesForAnyCausalAlignment) {
  const AttentionShape shape{.batch = 4, .heads = 8, .kv_heads = 2, .seq_q = 1024, .seq_k = 512, .head_dim = 64,
                             .value_dim = 128};
  const double full = 2.0 * 4 * 8 * 1024 * 512 * (64 + 128);
  EXPECT_EQ(flash_attention_flops(shape, CausalAlignment::none), full);
  EXPECT_EQ(flash_attention_flops(shape, CausalAlignment::top_left), full / 2);
  EXPECT_EQ(flash_attention_flops(shape, CausalAlignment::bottom_right), full / 2);
}

TEST(FlopCount, VisibleKeysCountsExactlyTheKeysEachQuerySees) {
  const AttentionShape decode{.batch = 1, .heads = 32, .kv_heads = 8, .seq_q = 4, .seq_k = 4096, .head_dim = 128,
                              .value_dim = 128};
  // Bottom-right: query i sees 4093 + i keys.
  EXPECT_EQ(visible_key_flops(decode, CausalAlignment::bottom_right), 2.0 * 32 * 256 * (4093 + 4094 + 4095 + 4096));
  EXPECT_EQ(visible_key_flops(decode, CausalAlignment::none), 2.0 * 32 * 256 * 4 * 4096);
  // Top-left: query i sees i + 1 keys.
  EXPECT_EQ(visible_key_flops(decode, CausalAlignment::top_left), 2.0 * 32 * 256 * (1 + 2 + 3 + 4));
  // More queries than keys, bottom-right: the first queries see none.
  const AttentionShape tall{.batch = 1, .heads = 1, .kv_heads = 1, .seq_q = 5, .seq_k = 2, .head_dim = 1,
                            .value_dim = 1};
  EXPECT_EQ(visible_key_flops(tall, CausalAlignment::bottom_right), 4.0 * (0 + 0 + 0 + 1 + 2));
}

TEST(UniformValues, AreMt19937sTop24BitsScaledToMinusOneToOne) {
  const std::vector<float> values = uniform_values(10000, 1);
  // The standard fixes std::mt19937's sequence: its first output from seed 1 is 1791095845.
  EXPECT_EQ(values[0], static_cast<float>(1791095845u >> 8) * 0x1p-23f - 1.0f);
  EXPECT_EQ(uniform_values(10000, 1), values);
  EXPECT_NE(uniform_values(10000, 2), values);
  EXPECT_GE(*std::min_element(values.begin(), values.end()), -1.0f);
  EXPECT_LT(*std::max_element(values.begin(), values.end()), 1.0f);
}

}  // namespace
}  // namespace attention
