#pragma once

// Parameters for tests that run through every supported encoder, alone or in every built-in
// encoding.

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "tokenizer/encoder_registry.hpp"
#include "tokenizer/vocabulary.hpp"

namespace tokenizer::test {

struct EncodingAndEncoder {
  std::string encoding;
  const Encoder* encoder;

  friend void PrintTo(const EncodingAndEncoder& c, std::ostream* os) { *os << c.encoding << "/" << c.encoder->name; }
};

inline std::vector<EncodingAndEncoder> every_encoding_and_encoder() {
  std::vector<EncodingAndEncoder> cases;
  for (const std::string& encoding : Vocabulary::builtin_names())
    for (const Encoder* encoder : supported_encoders()) cases.push_back({encoding, encoder});
  return cases;
}

inline std::string encoding_and_encoder_name(const ::testing::TestParamInfo<EncodingAndEncoder>& info) {
  return info.param.encoding + "_" + std::string(info.param.encoder->name);
}

inline std::string encoder_name(const ::testing::TestParamInfo<const Encoder*>& info) {
  return std::string(info.param->name);
}

}  // namespace tokenizer::test
