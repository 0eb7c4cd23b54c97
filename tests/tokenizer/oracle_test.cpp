// Every supported encoder, in every built-in encoding, gives exactly the oracle's ids (ICU pieces,
// textbook BPE) on thousands of seeded random texts: ill-formed bytes, many scripts, the ASCII
// alternatives of the patterns (with emoji, and plain), and runs long enough for
// BytePairEncoder's heap path.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "encoder_cases.hpp"
#include "oracle.hpp"
#include "random_text.hpp"
#include "test_data.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {
namespace {

using test::TextKind;

// One test a vocabulary and kind of text (or a vocabulary, for the large text), each supported
// encoder in turn against the oracle's ids: ctest runs every test in a process of its own, and
// computing those ids, the oracle being slow by design, was most of each test's time.
struct OracleCase {
  std::string encoding;
  TextKind kind;

  friend void PrintTo(const OracleCase& c, std::ostream* os) {
    *os << c.encoding << "/" << test::text_kind_name(c.kind);
  }
};

std::vector<OracleCase> oracle_cases() {
  std::vector<OracleCase> cases;
  for (const std::string& encoding : Vocabulary::builtin_names())
    for (const TextKind kind : test::kAllTextKinds) cases.push_back({encoding, kind});
  return cases;
}

class OracleAgreement : public ::testing::TestWithParam<OracleCase> {};

TEST_P(OracleAgreement, EncodeOrdinaryMatchesOracle) {
  const OracleCase& c = GetParam();
  const Tokenizer& tok = test::tokenizer(c.encoding);
  const std::vector<std::string>& texts = test::shared_random_texts(c.kind);
  const test::Oracle oracle(tok.vocabulary());
  std::vector<std::vector<Rank>> expected;
  for (const std::string& text : texts) expected.push_back(oracle.encode(text));
  for (const Encoder* encoder : supported_encoders()) {
    SCOPED_TRACE(std::string(encoder->name));
    constexpr int kReportedFailures = 5;
    int failures = 0;
    for (std::size_t i = 0; i < texts.size() && failures < kReportedFailures; ++i) {
      const std::vector<Rank> actual = tok.encode_ordinary(texts[i], *encoder);
      if (actual == expected[i]) continue;
      ++failures;
      SCOPED_TRACE(test::text_kind_name(c.kind) + " text #" + std::to_string(i) + ": " + test::escaped_start(texts[i]));
      test::expect_same_ids(expected[i], actual);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Random, OracleAgreement, ::testing::ValuesIn(oracle_cases()),
                         [](const ::testing::TestParamInfo<OracleCase>& info) {
                           return info.param.encoding + "_" + test::text_kind_name(info.param.kind);
                         });

// All the shared texts back to back, about a megabyte: long enough for encoders that cut a text
// into chunks, with pieces of every kind meeting at the seams.
std::string concatenated_text() {
  std::string out;
  for (const TextKind kind : test::kAllTextKinds)
    for (const std::string& t : test::shared_random_texts(kind)) out += t;
  return out;
}

class OracleAgreementLarge : public ::testing::TestWithParam<std::string> {};

TEST_P(OracleAgreementLarge, ConcatenatedTextsMatchOracle) {
  const Tokenizer& tok = test::tokenizer(GetParam());
  const std::string text = concatenated_text();
  const std::vector<Rank> expected = test::Oracle(tok.vocabulary()).encode(text);
  for (const Encoder* encoder : supported_encoders()) {
    SCOPED_TRACE(std::string(encoder->name));
    test::expect_same_ids(expected, tok.encode_ordinary(text, *encoder));
  }
}

INSTANTIATE_TEST_SUITE_P(Random, OracleAgreementLarge, ::testing::ValuesIn(Vocabulary::builtin_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

class OracleSoundness : public ::testing::TestWithParam<std::string> {};

// tiktoken encodes a piece that is itself a token as that token without merging; the oracle
// always merges. The two agree because textbook BPE reaches every token of the built-in
// vocabularies from its bytes, which this checks.
TEST_P(OracleSoundness, TextbookBpeReachesEveryToken) {
  const RankTable& ranks = test::tokenizer(GetParam()).vocabulary().ranks();
  std::size_t tokens = 0;
  for (Rank id = 0; id < ranks.rank_end(); ++id) {
    if (!ranks.contains(id)) continue;
    ++tokens;
    const std::string_view bytes = ranks.bytes(id);
    const std::vector<Rank> ids = test::textbook_bpe(bytes, ranks);
    ASSERT_EQ(ids, std::vector<Rank>{id}) << "token " << id << " " << test::escaped(bytes);
  }
  EXPECT_EQ(tokens, ranks.size());
}

INSTANTIATE_TEST_SUITE_P(Builtin, OracleSoundness, ::testing::ValuesIn(Vocabulary::builtin_names()));

}  // namespace
}  // namespace tokenizer
