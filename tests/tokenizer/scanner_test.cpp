// The hand-written scanners split text exactly as ICU's regex engine runs the tiktoken patterns
// (RegexPreTokenizer, the reference), on every corpus file and on the seeded random texts; and
// PreTokenizer picks a scanner for exactly the three tiktoken patterns.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "random_text.hpp"
#include "test_data.hpp"
#include "tokenizer/piece_scanners.hpp"
#include "tokenizer/pretokenizer.hpp"
#include "tokenizer/regex_pretokenizer.hpp"

namespace tokenizer {
namespace {

struct Pattern {
  std::string name;
  std::string_view text;
  PatternKind kind;
};

const std::vector<Pattern>& tiktoken_patterns() {
  static const std::vector<Pattern> patterns = {{"r50k", kR50kPattern, PatternKind::r50k},
                                                {"cl100k", kCl100kPattern, PatternKind::cl100k},
                                                {"o200k", kO200kPattern, PatternKind::o200k}};
  return patterns;
}

std::vector<std::string_view> reference_pieces(const RegexPreTokenizer& regex, std::string_view text) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  for (const std::size_t end : regex.piece_ends(text)) {
    pieces.push_back(text.substr(start, end - start));
    start = end;
  }
  return pieces;
}

// Reports the first piece that differs, with its byte offset and a little of the text around
// it. Returns whether the splits agree.
bool expect_same_pieces(const std::vector<std::string_view>& expected, const std::vector<std::string_view>& actual,
                        std::string_view text) {
  std::size_t i = 0, offset = 0;
  while (i < expected.size() && i < actual.size() && expected[i] == actual[i]) offset += expected[i++].size();
  if (i == expected.size() && i == actual.size()) return true;
  auto piece = [&](const std::vector<std::string_view>& v) { return i < v.size() ? test::escaped_start(v[i]) : "(none)"; };
  const std::size_t from = offset >= 40 ? offset - 40 : 0;
  ADD_FAILURE() << "pieces differ first at piece " << i << ", byte " << offset << " of " << text.size()
                << "\n  reference (ICU): " << piece(expected) << "\n  scanner:         " << piece(actual)
                << "\n  text from byte " << from << ": " << test::escaped(text.substr(from, 120));
  return false;
}

class ScannerVsRegex : public ::testing::TestWithParam<Pattern> {
 protected:
  const PreTokenizer scanner_{GetParam().text};
  const RegexPreTokenizer regex_{GetParam().text};
};

TEST_P(ScannerVsRegex, PatternHasItsScanner) { EXPECT_EQ(scanner_.kind(), GetParam().kind); }

TEST_P(ScannerVsRegex, CorpusSplitsAsRegex) {
  for (const std::string& name : test::corpus_names()) {
    SCOPED_TRACE("corpus " + name);
    const std::string text = test::read_corpus(name);
    expect_same_pieces(reference_pieces(regex_, text), scanner_.split(text), text);
  }
}

TEST_P(ScannerVsRegex, RandomTextsSplitAsRegex) {
  constexpr int kReportedFailures = 5;
  int failures = 0;
  for (const test::TextKind kind : test::kAllTextKinds) {
    const std::vector<std::string>& texts = test::shared_random_texts(kind);
    for (std::size_t i = 0; i < texts.size() && failures < kReportedFailures; ++i) {
      SCOPED_TRACE(test::text_kind_name(kind) + " text #" + std::to_string(i));
      if (!expect_same_pieces(reference_pieces(regex_, texts[i]), scanner_.split(texts[i]), texts[i])) ++failures;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Tiktoken, ScannerVsRegex, ::testing::ValuesIn(tiktoken_patterns()),
                         [](const ::testing::TestParamInfo<Pattern>& info) { return info.param.name; });

TEST(PreTokenizerKind, BuiltinVocabulariesUseTheirScanners) {
  EXPECT_EQ(test::tokenizer("r50k_base").pretokenizer().kind(), PatternKind::r50k);
  EXPECT_EQ(test::tokenizer("cl100k_base").pretokenizer().kind(), PatternKind::cl100k);
  EXPECT_EQ(test::tokenizer("o200k_base").pretokenizer().kind(), PatternKind::o200k);
  EXPECT_EQ(PreTokenizer(test::tokenizer("cl100k_base").vocabulary().pattern()).kind(), PatternKind::cl100k);
}

TEST(PreTokenizerKind, OtherPatternRunsOnRegex) {
  const PreTokenizer pretokenizer(R"(\S+|\s+)");
  EXPECT_EQ(pretokenizer.kind(), PatternKind::regex);
  const std::vector<std::string_view> expected = {"ab", "  ", "c\xFF", "\t\n", "d\xC3\xA9"};
  EXPECT_EQ(pretokenizer.split("ab  c\xFF\t\nd\xC3\xA9"), expected);
  EXPECT_TRUE(pretokenizer.split("").empty());
}

TEST(PreTokenizerKind, ExtendedTiktokenPatternRunsOnRegex) {
  // A scanner is chosen by the exact pattern text, not by resemblance.
  EXPECT_EQ(PreTokenizer(std::string(kCl100kPattern) + "|x").kind(), PatternKind::regex);
}

TEST(PreTokenizerKind, InvalidPatternThrowsInvalidArgument) {
  try {
    PreTokenizer pretokenizer("(ab");
    ADD_FAILURE() << "no exception for an unbalanced parenthesis";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("invalid pre-tokenization pattern"), std::string::npos) << e.what();
  }
}

TEST(PreTokenizerKind, PatternLeavingBytesUnmatchedThrows) {
  const RegexPreTokenizer regex("a+");
  EXPECT_EQ(regex.piece_ends("aaa"), std::vector<std::size_t>{3});
  EXPECT_THROW(regex.piece_ends("aab"), std::runtime_error);
  EXPECT_THROW(regex.piece_ends("baa"), std::runtime_error);
}

}  // namespace
}  // namespace tokenizer
