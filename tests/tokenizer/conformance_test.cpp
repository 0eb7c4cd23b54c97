// Every corpus file, in every built-in encoding, through every supported encoder, gives exactly
// the ids tiktoken gives (data/golden, recorded with tiktoken 1.0.22).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "test_data.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {
namespace {

struct GoldenCase {
  std::string corpus;
  std::string encoding;
  const Encoder* encoder;

  friend void PrintTo(const GoldenCase& c, std::ostream* os) {
    *os << c.corpus << "/" << c.encoding << "/" << c.encoder->name;
  }
};

std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> cases;
  for (const std::string& corpus : test::corpus_names())
    for (const std::string& encoding : Vocabulary::builtin_names())
      for (const Encoder* encoder : supported_encoders()) cases.push_back({corpus, encoding, encoder});
  return cases;
}

class Conformance : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Conformance, OrdinaryMatchesTiktoken) {
  const GoldenCase& c = GetParam();
  const Tokenizer& tok = test::tokenizer(c.encoding);
  const std::string text = test::read_corpus(c.corpus);
  test::expect_same_ids(test::read_golden(c.corpus + "." + c.encoding + ".u32"), tok.encode_ordinary(text, *c.encoder));
}

TEST_P(Conformance, AllSpecialMatchesTiktoken) {
  const GoldenCase& c = GetParam();
  const Tokenizer& tok = test::tokenizer(c.encoding);
  const std::string text = test::read_corpus(c.corpus);
  // Golden files with special tokens exist only where they differ from the ordinary ones.
  std::string golden = c.corpus + "." + c.encoding + ".special.u32";
  if (!std::filesystem::exists(test::golden_dir() / golden)) golden = c.corpus + "." + c.encoding + ".u32";
  test::expect_same_ids(test::read_golden(golden), tok.encode(text, SpecialTokenPolicy::all(), *c.encoder));
}

INSTANTIATE_TEST_SUITE_P(Golden, Conformance, ::testing::ValuesIn(golden_cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           return info.param.corpus + "_" + info.param.encoding + "_" + std::string(info.param.encoder->name);
                         });

}  // namespace
}  // namespace tokenizer
