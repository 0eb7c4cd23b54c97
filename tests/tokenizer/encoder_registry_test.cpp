// The registry's own invariants, which benches and encoder_ratios rely on.
#include <gtest/gtest.h>

#include <set>
#include <string_view>

#include "tokenizer/encoder_registry.hpp"

namespace tokenizer {
namespace {

TEST(EncoderRegistry, NamesAreUniqueAndFound) {
  std::set<std::string_view> names;
  for (const Encoder& encoder : all_encoders()) {
    EXPECT_TRUE(names.insert(encoder.name).second) << encoder.name;
    EXPECT_EQ(find_encoder(encoder.name), &encoder);
  }
  EXPECT_EQ(find_encoder("no such encoder"), nullptr);
}

// A multithreaded encoder's speed-up is reported over its counterpart: that must be a registered
// single-threaded encoder, supported wherever the multithreaded one is.
TEST(EncoderRegistry, MultithreadedEncodersNameASingleThreadedCounterpart) {
  int multithreaded = 0;
  for (const Encoder& encoder : all_encoders()) {
    if (!encoder.multithreaded()) continue;
    ++multithreaded;
    SCOPED_TRACE(encoder.name);
    const Encoder* counterpart = find_encoder(encoder.single_threaded_counterpart);
    ASSERT_NE(counterpart, nullptr);
    EXPECT_FALSE(counterpart->multithreaded());
    if (encoder.is_supported()) {
      EXPECT_TRUE(counterpart->is_supported());
    }
  }
  EXPECT_EQ(multithreaded, 2);
}

}  // namespace
}  // namespace tokenizer
