// Loading vocabularies: a valid tiny one encodes as computed by hand; every kind of fault in a
// .tiktoken or .json file raises VocabularyError naming the file, the line where there is one,
// and the fault; the built-in encodings load by name.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "encoder_cases.hpp"
#include "tiny_vocabulary.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {
namespace {

using test::TinyVocabulary;

class VocabularyFile : public ::testing::Test {
 protected:
  // Writes tiny.tiktoken from `lines` (and tiny.json from `spec`) and loads it.
  Vocabulary load(const std::vector<std::string>& lines, const std::string& spec = TinyVocabulary::spec()) const {
    dir_.write("tiny.json", spec);
    return Vocabulary::load(dir_.write("tiny.tiktoken", TinyVocabulary::join(lines)));
  }
  std::string ranks_file() const { return (dir_.path() / "tiny.tiktoken").string(); }
  std::string spec_file() const { return (dir_.path() / "tiny.json").string(); }

  // Expects `load` to throw VocabularyError whose message holds every one of `fragments`.
  template <class Load>
  static void expect_error(Load&& load, const std::vector<std::string>& fragments) {
    try {
      load();
      ADD_FAILURE() << "no VocabularyError";
    } catch (const VocabularyError& e) {
      for (const std::string& fragment : fragments)
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
            << "message lacks \"" << fragment << "\": " << e.what();
    }
  }

  // Expects loading the tiny vocabulary with line `line_no` replaced by `line` to fail at that
  // line with a message holding `fault`.
  void expect_line_error(std::size_t line_no, const std::string& line, const std::string& fault) const {
    std::vector<std::string> lines = TinyVocabulary::rank_lines();
    if (line_no > lines.size()) lines.resize(line_no);
    lines[line_no - 1] = line;
    SCOPED_TRACE("line " + std::to_string(line_no) + ": " + line);
    expect_error([&] { load(lines); }, {ranks_file() + ":" + std::to_string(line_no) + ": ", fault});
  }

  // Expects loading with this spec file text to fail with a message holding `fragments`.
  void expect_spec_error(const std::string& spec, const std::vector<std::string>& fragments) const {
    SCOPED_TRACE("spec " + spec);
    expect_error([&] { load(TinyVocabulary::rank_lines(), spec); }, fragments);
  }

  test::ScratchDir dir_;
};

// Line numbers of tiny.tiktoken: rank r is on line r + 1; the first line past the end.
constexpr std::size_t kLineOfA = 'A' + 1;
constexpr std::size_t kLineAfterEnd = TinyVocabulary::kRankEnd + 1;

TEST_F(VocabularyFile, TinyVocabularyLoads) {
  const Vocabulary v = load(TinyVocabulary::rank_lines());
  EXPECT_EQ(v.name(), "tiny");
  EXPECT_EQ(v.pattern(), R"(\S+|\s+)");
  EXPECT_EQ(v.ranks().size(), 262u);
  EXPECT_EQ(v.ranks().find("abcd"), 258u);
  EXPECT_EQ(v.id_end(), TinyVocabulary::kPad + 1);
  ASSERT_EQ(v.special_tokens().size(), 2u);
  EXPECT_EQ(v.special_tokens()[0].text, "<|end|>");
  EXPECT_EQ(v.special_tokens()[0].rank, TinyVocabulary::kEnd);
  EXPECT_EQ(v.token_bytes(TinyVocabulary::kPad), "<|pad|>");
}

TEST_F(VocabularyFile, CrlfLineEndsAreAccepted) {
  dir_.write("tiny.json", TinyVocabulary::spec());
  const Vocabulary v = Vocabulary::load(dir_.write("tiny.tiktoken", TinyVocabulary::join(TinyVocabulary::rank_lines(), "\r\n")));
  EXPECT_EQ(v.ranks().size(), 262u);
  EXPECT_EQ(v.ranks().find("abcd"), 258u);
  EXPECT_EQ(v.ranks().bytes('\r'), "\r");
}

TEST_F(VocabularyFile, BlankLinesAreSkippedAsTiktokenDoes) {
  std::vector<std::string> lines = TinyVocabulary::rank_lines();
  lines.insert(lines.begin() + 10, "");
  lines.push_back("");
  const Vocabulary v = load(lines);
  EXPECT_EQ(v.ranks().size(), 262u);
  EXPECT_EQ(v.ranks().find("abcd"), 258u);
  // Line numbers still count the blank line: rank 'A' now sits one line further down.
  lines[kLineOfA] = "QQ== x";
  expect_error([&] { load(lines); }, {ranks_file() + ":" + std::to_string(kLineOfA + 1) + ": ", "bad rank"});
}

TEST_F(VocabularyFile, LoadWithSpecGivenDirectly) {
  const std::string path = dir_.write("direct.tiktoken", TinyVocabulary::join(TinyVocabulary::rank_lines())).string();
  const Vocabulary v = Vocabulary::load(path, "direct", R"(\S+)", {{"<|x|>", 400}});
  EXPECT_EQ(v.name(), "direct");
  EXPECT_EQ(v.id_end(), 401u);
  expect_error([&] { Vocabulary::load(path, "direct", R"(\S+)", {{"<|x|>", 'x'}}); },
               {path, "special token \"<|x|>\" has id 120, which an ordinary token already has"});
}

TEST_F(VocabularyFile, MissingFiles) {
  const std::string absent = (dir_.path() / "absent.tiktoken").string();
  expect_error([&] { Vocabulary::load(absent); }, {absent});  // neither file exists
  dir_.write("absent.json", TinyVocabulary::spec());
  expect_error([&] { Vocabulary::load(absent); }, {absent, "cannot open vocabulary file"});
  expect_error([&] { Vocabulary::load(absent, "absent", R"(\S+)", {}); }, {absent, "cannot open vocabulary file"});
  dir_.write("tiny.tiktoken", TinyVocabulary::join(TinyVocabulary::rank_lines()));
  expect_error([&] { Vocabulary::load(ranks_file()); }, {ranks_file(), "no spec file", spec_file()});
}

TEST_F(VocabularyFile, EmptyFile) {
  dir_.write("tiny.json", TinyVocabulary::spec());
  expect_error([&] { Vocabulary::load(dir_.write("tiny.tiktoken", "")); }, {ranks_file(), "empty vocabulary file"});
}

TEST_F(VocabularyFile, BadBase64) {
  expect_line_error(kLineOfA, "Q!== 65", "bad base64 \"Q!==\"");    // not in the alphabet
  expect_line_error(kLineOfA, "QQ= 65", "bad base64 \"QQ=\"");      // length not a multiple of 4
  expect_line_error(kLineOfA, "QQ 65", "bad base64 \"QQ\"");        // padding missing
  expect_line_error(kLineOfA, "QQ=A 65", "bad base64 \"QQ=A\"");    // padding inside
  expect_line_error(kLineOfA, "Q=== 65", "bad base64 \"Q===\"");    // too much padding
  expect_line_error(kLineOfA, "QR== 65", "bad base64 \"QR==\"");    // non-zero pad bits
  expect_line_error(kLineOfA, "QUJ= 65", "bad base64 \"QUJ=\"");    // non-zero pad bits after two bytes
  expect_line_error(kLineOfA, " 65", "bad base64 \"\"");            // no token at all
}

TEST_F(VocabularyFile, BadRankField) {
  expect_line_error(kLineOfA, "QQ==65", "expected 'BASE64 RANK', found \"QQ==65\"");
  expect_line_error(kLineOfA, "QQ==\t65", "expected 'BASE64 RANK'");
  expect_line_error(kLineOfA, "QQ== ", "missing rank");
  expect_line_error(kLineOfA, "QQ== 6x", "bad rank \"6x\"");
  expect_line_error(kLineOfA, "QQ== -65", "bad rank \"-65\"");
  expect_line_error(kLineOfA, "QQ== 65 ", "bad rank \"65 \"");
  expect_line_error(kLineAfterEnd, "eHl6 4294967295", "rank 4294967295 is too large (at most 16777215)");
  // Legal as a number but would cost gigabytes of span table: refused, not allocated.
  expect_line_error(kLineAfterEnd, "eHl6 4294967294", "rank 4294967294 is too large");
  expect_line_error(kLineAfterEnd, "eHl6 16777216", "rank 16777216 is too large");
  expect_line_error(kLineAfterEnd, "eHl6 99999999999999999999999", "is too large");
}

TEST_F(VocabularyFile, RanksMustIncrease) {
  expect_line_error(kLineAfterEnd, "eHl6 261", "rank 261 repeated (ranks must increase)");
  expect_line_error(kLineAfterEnd, "eHl6 100", "rank 100 out of order: follows rank 261");
  expect_line_error(2, "AQ== 0", "rank 0 repeated");
}

TEST_F(VocabularyFile, DuplicateToken) {
  expect_line_error(kLineAfterEnd, "YWI= 262", "duplicate token \"ab\", already rank 256");
}

TEST_F(VocabularyFile, EveryByteNeedsARank) {
  std::vector<std::string> lines = TinyVocabulary::rank_lines();
  lines.erase(lines.begin() + 'A');
  expect_error([&] { load(lines); }, {ranks_file(), "no token for the single byte 0x41"});
  lines = TinyVocabulary::rank_lines();
  lines.erase(lines.begin() + 0xFF);
  expect_error([&] { load(lines); }, {ranks_file(), "no token for the single byte 0xFF"});
}

TEST_F(VocabularyFile, MalformedSpecJson) {
  expect_spec_error("{\n  \"name\": \"tiny\",\n  \"pat_str\": \"\\\\S+\t\"\n}\n", {spec_file() + ":3: ", "control character"});
  // A raw newline inside a string is reported on the line where it stands.
  expect_spec_error("{\n  \"name\": \"tiny\",\n  \"pat_str\": \"\\\\S+\n\"\n}\n", {spec_file() + ":3: ", "control character"});
  expect_spec_error("{\n  \"name\": \"tiny\",\n  \"pat_str\": \"\\\\S+", {spec_file() + ":3: ", "unterminated string"});
  expect_spec_error("{\n  \"name\": \"tiny\"\n}\n", {spec_file(), "no \"pat_str\" key"});
  expect_spec_error("{\n  \"name\": \"tiny\",\n  \"pat_str\": \"\\q\"\n}\n", {spec_file() + ":3: ", "bad escape \\q"});
  expect_spec_error(TinyVocabulary::spec() + "garbage\n",
                    {spec_file() + ":6: ", "unexpected text after the top-level object"});
  expect_spec_error("{\n  \"name\": \"tiny\",\n  \"pat_str\": \"\\uD800x\"\n}\n",
                    {spec_file() + ":3: ", "lone high surrogate"});
  expect_spec_error("{\n  \"name\": \"tiny\"\n  \"pat_str\": \"x\"\n}\n", {spec_file() + ":3: ", "expected '}'"});
  expect_spec_error("", {spec_file(), "expected '{'"});
  expect_spec_error(TinyVocabulary::spec(R"({"<|end|>": -1})"), {spec_file() + ":4: ", "non-negative integer"});
}

// Values under keys the reader does not use are skipped, whatever they hold and however deep.
TEST_F(VocabularyFile, SkipsValuesOfUnusedKeys) {
  const std::string tail = "  \"pat_str\": \"\\\\S+|\\\\s+\"\n}\n";
  for (const std::string value :
       {"[]", "{}", "[1, -2.5e3, true, false, null]", R"({"a": [{"b": {}}, "]}"], "c": {"d": [[]]}})",
        R"("a \"quoted\" string")"}) {
    SCOPED_TRACE(value);
    EXPECT_EQ(load(TinyVocabulary::rank_lines(), "{\n  \"unused\": " + value + ",\n" + tail).special_tokens().size(), 0u);
  }
  // 200,000 levels once overflowed the stack (the reader recursed once per level).
  constexpr std::size_t kDepth = 200'000;
  for (const auto& [open, close] : {std::pair{"[", "]"}, std::pair{"{\"k\":", "}"}}) {
    std::string deep;
    for (std::size_t i = 0; i < kDepth; ++i) deep += open;
    deep += "0";
    for (std::size_t i = 0; i < kDepth; ++i) deep += close;
    EXPECT_EQ(load(TinyVocabulary::rank_lines(), "{\n  \"unused\": " + deep + ",\n" + tail).special_tokens().size(), 0u);
    // Unclosed, it is an error, not a crash.
    expect_spec_error("{\n  \"unused\": " + deep.substr(0, deep.size() - 1) + ",\n" + tail,
                      {spec_file() + ":", std::string("expected '") + close + "'"});
  }
  expect_spec_error("{\n  \"unused\": [1 2],\n" + tail, {spec_file() + ":2: ", "expected ']'"});
  expect_spec_error("{\n  \"unused\": {\"a\" 1},\n" + tail, {spec_file() + ":2: ", "expected ':'"});
  expect_spec_error("{\n  \"unused\": [,],\n" + tail, {spec_file() + ":2: ", "expected a value"});
  expect_spec_error("{\n  \"unused\": [", {spec_file() + ":2: ", "expected a value"});
}

TEST_F(VocabularyFile, SpecialTokenIdCollisions) {
  expect_spec_error(TinyVocabulary::spec(R"({"<|end|>": 97})"),
                    {spec_file(), "special token \"<|end|>\" has id 97, which an ordinary token already has"});
  expect_spec_error(TinyVocabulary::spec(R"({"<|end|>": 300, "<|end|>": 301})"),
                    {spec_file(), "special token \"<|end|>\" is listed twice"});
  expect_spec_error(TinyVocabulary::spec(R"({"<|end|>": 300, "<|pad|>": 300})"),
                    {spec_file(), "special token \"<|pad|>\" has id 300, as \"<|end|>\" does"});
  expect_spec_error(TinyVocabulary::spec(R"({"": 300})"), {spec_file(), "empty special token text"});
}

// The tiny vocabulary through each encoder: its pattern is no tiktoken pattern, so the pieces
// come from the regex engine.
class TinyVocabularyEncoding : public ::testing::TestWithParam<const Encoder*> {
 protected:
  static const Tokenizer& tokenizer() {
    static const Tokenizer tok = [] {
      const test::ScratchDir dir;
      dir.write("tiny.json", TinyVocabulary::spec());
      return Tokenizer(Vocabulary::load(dir.write("tiny.tiktoken", TinyVocabulary::join(TinyVocabulary::rank_lines()))));
    }();
    return tok;
  }
};

TEST_P(TinyVocabularyEncoding, EncodesAsComputedByHand) {
  const Tokenizer& tok = tokenizer();
  EXPECT_EQ(tok.pretokenizer().kind(), PatternKind::regex);
  const std::vector<Rank> expected = {258, ' ', 256, 'c', ' ', 'b', 257, ' ', 261, 'a', 259, 'x'};
  EXPECT_EQ(tok.encode_ordinary("abcd abc bcd aaa  x", *GetParam()), expected);
  EXPECT_EQ(tok.encode("ab<|end|><|pad|>cd", SpecialTokenPolicy::all(), *GetParam()),
            (std::vector<Rank>{256, TinyVocabulary::kEnd, TinyVocabulary::kPad, 257}));
  EXPECT_EQ(tok.decode(expected), "abcd abc bcd aaa  x");
}

INSTANTIATE_TEST_SUITE_P(Encoders, TinyVocabularyEncoding, ::testing::ValuesIn(supported_encoders()),
                         test::encoder_name);

TEST(BuiltinVocabulary, UnknownNameListsTheBuiltinNames) {
  try {
    Vocabulary::builtin("p50k_base");
    ADD_FAILURE() << "no VocabularyError";
  } catch (const VocabularyError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("unknown encoding 'p50k_base'"), std::string::npos) << message;
    for (const std::string& name : Vocabulary::builtin_names())
      EXPECT_NE(message.find(name), std::string::npos) << message;
  }
}

TEST(BuiltinVocabulary, O200kLoads) {
  const Vocabulary v = Vocabulary::builtin("o200k_base");
  EXPECT_EQ(v.name(), "o200k_base");
  EXPECT_EQ(v.ranks().size(), 199998u);
  EXPECT_EQ(v.id_end(), 200019u);
  ASSERT_NE(v.find_special("<|endoftext|>"), nullptr);
  EXPECT_EQ(v.find_special("<|endoftext|>")->rank, 199999u);
  EXPECT_EQ(v.token_bytes(v.ranks().find(" the")), " the");
}

}  // namespace
}  // namespace tokenizer
