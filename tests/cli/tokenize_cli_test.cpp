// The `tokenize` program, run as a child process: its output byte for byte, its exit status and
// its messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "process_runner.hpp"
#include "test_data.hpp"
#include "tokenizer/encoder_registry.hpp"
#include "tokenizer/vocabulary.hpp"

namespace tokenizer {
namespace {

namespace fs = std::filesystem;

// The corpus file the golden-file tests use: short, and mostly multi-byte UTF-8.
constexpr const char* kCorpus = "udhr_jpn";
// The corpus file with special-token text in it, and golden ids with and without specials.
constexpr const char* kSpecialCorpus = "adv_mixed";

constexpr int kExitRuntimeError = 1;
constexpr int kExitUsageError = 2;

test::ProcessResult run_tokenize(std::vector<std::string> args, std::string stdin_bytes = {},
                                 std::vector<std::pair<std::string, std::string>> env = {}) {
  return test::run_process({TOKBENCH_TOKENIZE_BINARY, std::move(args), std::move(stdin_bytes), std::move(env)});
}

// Standard output of a run that must succeed silently.
std::string output_of(std::vector<std::string> args, std::string stdin_bytes = {},
                      std::vector<std::pair<std::string, std::string>> env = {}) {
  const test::ProcessResult r = run_tokenize(std::move(args), std::move(stdin_bytes), std::move(env));
  EXPECT_EQ(r.exit_code, 0) << "stderr: " << r.err;
  EXPECT_EQ(r.err, "");
  return r.out;
}

std::string corpus_path(const std::string& name) { return (test::corpus_dir() / (name + ".txt")).string(); }
std::string golden_path(const std::string& file) { return (test::golden_dir() / file).string(); }

std::string as_text(const std::vector<Rank>& ids) {
  std::string out;
  for (const Rank id : ids) {
    if (!out.empty()) out += ' ';
    out += std::to_string(id);
  }
  return out + '\n';
}

std::vector<Rank> ids_of_u32(const std::string& bytes) {
  EXPECT_EQ(bytes.size() % 4, 0u);
  std::vector<Rank> ids(bytes.size() / 4);
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  for (std::size_t i = 0; i < ids.size(); ++i, b += 4)
    ids[i] = Rank(b[0]) | Rank(b[1]) << 8 | Rank(b[2]) << 16 | Rank(b[3]) << 24;
  return ids;
}

// Compares byte strings without printing them whole when they differ.
void expect_same_bytes(const std::string& expected, const std::string& actual) {
  if (expected == actual) return;
  std::size_t i = 0;
  while (i < expected.size() && i < actual.size() && expected[i] == actual[i]) ++i;
  ADD_FAILURE() << "bytes differ first at offset " << i << " (expected " << expected.size() << " bytes, got "
                << actual.size() << ")";
}

// A fresh folder per test, removed afterwards.
class TokenizeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "." + info->name();
    for (char& c : name)
      if (c == '/') c = '_';
    dir_ = fs::path(::testing::TempDir()) / ("tokenize_cli." + name + "." + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  const fs::path& dir() const { return dir_; }

  std::string write_file(const std::string& name, const std::string& bytes) const {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }

 private:
  fs::path dir_;
};

class TokenizeCliGolden : public TokenizeCli, public ::testing::WithParamInterface<std::string> {
 protected:
  const std::string& encoding() const { return GetParam(); }
  std::string golden_file() const { return std::string(kCorpus) + "." + encoding() + ".u32"; }
};

TEST_P(TokenizeCliGolden, U32IsGoldenFileExactly) {
  const std::string out = output_of({"--encoding", encoding(), "--format", "u32", corpus_path(kCorpus)});
  const std::string golden = test::read_binary(golden_path(golden_file()));
  EXPECT_EQ(out.size(), golden.size());
  EXPECT_TRUE(out == golden);
  test::expect_same_ids(test::read_golden(golden_file()), ids_of_u32(out));
}

TEST_P(TokenizeCliGolden, TextAndCountAgreeWithU32) {
  const std::vector<Rank> golden = test::read_golden(golden_file());
  EXPECT_EQ(output_of({"--encoding", encoding(), corpus_path(kCorpus)}), as_text(golden));
  EXPECT_EQ(output_of({"--encoding", encoding(), "--format", "text", corpus_path(kCorpus)}), as_text(golden));
  EXPECT_EQ(output_of({"--encoding", encoding(), "--format", "count", corpus_path(kCorpus)}),
            std::to_string(golden.size()) + "\n");
}

TEST_P(TokenizeCliGolden, DecodeGivesBackTheCorpus) {
  const std::string corpus = test::read_corpus(kCorpus);
  expect_same_bytes(corpus, output_of({"--encoding", encoding(), "--decode", "--format", "u32", golden_path(golden_file())}));
  const std::string text_ids = as_text(test::read_golden(golden_file()));
  expect_same_bytes(corpus, output_of({"--encoding", encoding(), "--decode"}, text_ids));
}

TEST_P(TokenizeCliGolden, RandomAndIllFormedBytesRoundTrip) {
  // Ill-formed UTF-8 of every kind, then random bytes.
  std::string bytes =
      "\x80 lone continuation \xC3 truncated two \xE3\x81 truncated three \xC0\x80 overlong "
      "\xED\xA0\x80 surrogate \xF4\x90\x80\x80 above U+10FFFF \xF8\xFF\xFE invalid lead \xE3\x81\x82 valid";
  std::mt19937 rng(20240601);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < 4096; ++i) bytes += static_cast<char>(byte(rng));
  const std::string input = write_file("input.bin", bytes);
  for (const std::string format : {"u32", "text"}) {
    SCOPED_TRACE(format);
    const std::string ids = output_of({"--encoding", encoding(), "--format", format, input});
    ASSERT_FALSE(ids.empty());
    expect_same_bytes(bytes, output_of({"--encoding", encoding(), "--format", format, "--decode"}, ids));
  }
}

INSTANTIATE_TEST_SUITE_P(Encodings, TokenizeCliGolden, ::testing::ValuesIn(Vocabulary::builtin_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST_F(TokenizeCli, ReadsStandardInputByDefaultAndForDash) {
  const std::string expected = as_text(test::read_golden(std::string(kCorpus) + ".cl100k_base.u32"));
  const std::string corpus = test::read_corpus(kCorpus);
  EXPECT_EQ(output_of({}, corpus), expected);
  EXPECT_EQ(output_of({"-"}, corpus), expected);
  EXPECT_EQ(output_of({"--format=text", "--", "-"}, corpus), expected);
}

TEST_F(TokenizeCli, EmptyInput) {
  EXPECT_EQ(output_of({}), "\n");
  EXPECT_EQ(output_of({"--format", "u32"}), "");
  EXPECT_EQ(output_of({"--format", "count"}), "0\n");
  EXPECT_EQ(output_of({"--decode"}), "");
  EXPECT_EQ(output_of({"--decode", "--format", "u32"}), "");
}

TEST_F(TokenizeCli, DecodeTextAcceptsAnyWhitespace) {
  EXPECT_EQ(output_of({"--decode"}, " 9906\t\n1917\r\n"), "Hello world");
}

TEST_F(TokenizeCli, AllowSpecialTurnsSpecialTextIntoItsId) {
  const std::string text = "hello <|endoftext|> world";
  EXPECT_EQ(output_of({"--allow-special"}, text), "15339 220 100257 1917\n");
  EXPECT_EQ(output_of({}, text), "15339 83739 8862 728 428 91 29 1917\n");
  EXPECT_EQ(output_of({"--decode"}, "15339 220 100257 1917"), text);
}

TEST_F(TokenizeCli, EveryEncoderGivesTheSameIds) {
  const std::string ordinary = test::read_binary(golden_path(std::string(kSpecialCorpus) + ".cl100k_base.u32"));
  const std::string special = test::read_binary(golden_path(std::string(kSpecialCorpus) + ".cl100k_base.special.u32"));
  ASSERT_FALSE(ordinary == special);  // else the second check below would prove nothing
  for (const Encoder& encoder : all_encoders()) {
    SCOPED_TRACE(encoder.name);
    const std::string name(encoder.name);
    if (!encoder.is_supported()) {
      const test::ProcessResult r = run_tokenize({"--encoder", name}, "text");
      EXPECT_EQ(r.exit_code, kExitUsageError);
      EXPECT_NE(r.err.find("'" + name + "' is not supported on this CPU"), std::string::npos) << r.err;
      continue;
    }
    expect_same_bytes(ordinary, output_of({"--encoder", name, "--format", "u32", corpus_path(kSpecialCorpus)}));
    expect_same_bytes(special,
                      output_of({"--encoder", name, "--allow-special", "--format", "u32", corpus_path(kSpecialCorpus)}));
  }
}

TEST_F(TokenizeCli, VocabFileLoadsWithItsSpec) {
  const std::string golden = test::read_binary(golden_path(std::string(kCorpus) + ".o200k_base.u32"));
  expect_same_bytes(golden, output_of({"--vocab", TOKBENCH_VOCAB_DIR "/o200k_base.tiktoken", "--format", "u32",
                                       corpus_path(kCorpus)}));
}

TEST_F(TokenizeCli, DataDirComesFromEnvironment) {
  // A data folder whose "cl100k_base" is really r50k_base: the default encoding must then give
  // r50k_base's ids.
  fs::create_directories(dir() / "vocab");
  fs::create_symlink(TOKBENCH_VOCAB_DIR "/r50k_base.tiktoken", dir() / "vocab" / "cl100k_base.tiktoken");
  fs::create_symlink(TOKBENCH_VOCAB_DIR "/r50k_base.json", dir() / "vocab" / "cl100k_base.json");
  expect_same_bytes(test::read_binary(golden_path(std::string(kCorpus) + ".r50k_base.u32")),
                    output_of({"--format", "u32", corpus_path(kCorpus)}, {}, {{"TOKENIZER_DATA_DIR", dir().string()}}));
}

// A run that must fail: nothing on stdout, one "tokenize: " message naming the fault.
void expect_failure(const test::ProcessResult& r, int exit_code, const std::string& fault) {
  EXPECT_EQ(r.exit_code, exit_code) << "stderr: " << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with("tokenize: ")) << r.err;
  EXPECT_NE(r.err.find(fault), std::string::npos) << "expected '" << fault << "' in: " << r.err;
}

TEST_F(TokenizeCli, EmptyDataDirIsAnErrorNamingTheFile) {
  expect_failure(run_tokenize({}, "text", {{"TOKENIZER_DATA_DIR", dir().string()}}), kExitRuntimeError,
                 (dir() / "vocab" / "cl100k_base").string());
}

TEST_F(TokenizeCli, MalformedVocabFileIsAnErrorNamingTheLine) {
  write_file("bad.json", R"({"name": "bad", "pat_str": "\\S+", "special_tokens": {}})");
  const std::string vocab = write_file("bad.tiktoken", "QQ== 0\nnot-base64 1\n");
  expect_failure(run_tokenize({"--vocab", vocab}, "text"), kExitRuntimeError, vocab + ":2: bad base64");
}

struct ErrorCase {
  std::string name;
  std::vector<std::string> args;
  std::string stdin_bytes;
  int exit_code;
  std::string fault;  // expected in the message

  friend void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }
};

class TokenizeCliError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(TokenizeCliError, FailsWithMessage) {
  const ErrorCase& c = GetParam();
  expect_failure(run_tokenize(c.args, c.stdin_bytes), c.exit_code, c.fault);
}

std::string u32_bytes(std::initializer_list<Rank> ids) {
  std::string out;
  for (const Rank id : ids)
    for (int shift = 0; shift < 32; shift += 8) out += static_cast<char>(id >> shift);
  return out;
}

const std::string kMissingFile = corpus_path("no_such_file");

INSTANTIATE_TEST_SUITE_P(
    Cases, TokenizeCliError,
    ::testing::Values(
        ErrorCase{"UnknownOption", {"--frobnicate"}, "", kExitUsageError, "unknown option '--frobnicate'"},
        ErrorCase{"UnknownShortOption", {"-x"}, "", kExitUsageError, "unknown option '-x'"},
        ErrorCase{"MissingFormatValue", {"--format"}, "", kExitUsageError, "option --format needs a value"},
        ErrorCase{"MissingEncodingValue", {"--encoding"}, "", kExitUsageError, "option --encoding needs a value"},
        ErrorCase{"MissingVocabValue", {"--vocab"}, "", kExitUsageError, "option --vocab needs a value"},
        ErrorCase{"MissingEncoderValue", {"--encoder"}, "", kExitUsageError, "option --encoder needs a value"},
        ErrorCase{"ValueForFlag", {"--decode=yes"}, "", kExitUsageError, "option --decode takes no value"},
        ErrorCase{"ValueForList", {"--list=yes"}, "", kExitUsageError, "option --list takes no value"},
        ErrorCase{"UnknownFormat", {"--format", "xml"}, "", kExitUsageError, "unknown format 'xml'"},
        ErrorCase{"UnknownEncoding", {"--encoding", "p50k_base"}, "", kExitUsageError, "unknown encoding 'p50k_base'"},
        ErrorCase{"UnknownEncoder", {"--encoder", "warp"}, "", kExitUsageError, "unknown encoder 'warp'"},
        ErrorCase{"EncodingAndVocab", {"--encoding", "r50k_base", "--vocab", "x.tiktoken"}, "", kExitUsageError,
                  "either --encoding or --vocab"},
        ErrorCase{"TwoInputFiles", {"a.txt", "b.txt"}, "", kExitUsageError, "two input files given: 'a.txt' and 'b.txt'"},
        // Found by tests/fuzz/tokenize_arguments: once a runtime error naming no file (": cannot open").
        ErrorCase{"EmptyInputFileName", {"", "--"}, "", kExitUsageError,
                  "an empty input file name (use - for standard input)"},
        ErrorCase{"DecodeCount", {"--decode", "--format", "count"}, "", kExitUsageError, "--format count"},
        ErrorCase{"MissingInputFile", {kMissingFile}, "", kExitRuntimeError, kMissingFile + ": cannot open"},
        ErrorCase{"DirectoryAsInput", {test::corpus_dir().string()}, "", kExitRuntimeError,
                  test::corpus_dir().string() + ": read error"},
        ErrorCase{"MissingVocabFile", {"--vocab", kMissingFile + ".tiktoken"}, "", kExitRuntimeError, kMissingFile},
        ErrorCase{"UnknownTextId", {"--decode"}, "5 100000000 7", kExitRuntimeError,
                  "unknown token id 100000000 at position 1"},
        ErrorCase{"BadTextNumber", {"--decode"}, "12 3x4 5", kExitRuntimeError, "bad token id '3x4' at position 1"},
        ErrorCase{"NegativeTextNumber", {"--decode"}, "-1", kExitRuntimeError, "bad token id '-1' at position 0"},
        ErrorCase{"TooLargeTextNumber", {"--decode"}, "1 4294967296", kExitRuntimeError,
                  "bad token id '4294967296' at position 1"},
        ErrorCase{"BinaryTextNumber", {"--decode"}, "\x01\xFF", kExitRuntimeError, "bad token id '\\x01\\xFF'"},
        ErrorCase{"UnknownU32Id", {"--decode", "--format", "u32"}, u32_bytes({1, 2, 4294967295u}), kExitRuntimeError,
                  "unknown token id 4294967295 at position 2"},
        ErrorCase{"U32SizeNotMultipleOf4", {"--decode", "--format", "u32"}, u32_bytes({1}) + "\x02", kExitRuntimeError,
                  "5 bytes long, not a multiple of 4"}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

TEST_F(TokenizeCli, HelpDocumentsEveryOption) {
  const std::string help = output_of({"--help"});
  for (const std::string fact :
       {"--encoding", "--vocab", "--encoder", "--allow-special", "--format", "--decode", "--list", "--help", "-h", "text", "u32",
        "count", "default: cl100k_base", "U+FFFD", "TOKENIZER_DATA_DIR", "Exit status"})
    EXPECT_NE(help.find(fact), std::string::npos) << fact;
  for (const std::string& encoding : Vocabulary::builtin_names()) EXPECT_NE(help.find(encoding), std::string::npos);
  for (const Encoder& encoder : all_encoders()) EXPECT_NE(help.find(encoder.name), std::string::npos) << encoder.name;
  EXPECT_NE(help.find("default: " + std::string(fastest_encoder().name)), std::string::npos);
  EXPECT_EQ(output_of({"-h"}), help);
}

TEST_F(TokenizeCli, ListShowsEachEncoderOnALineOfItsOwn) {
  const std::string listing = output_of({"--list"});
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < listing.size();) {
    const std::size_t end = listing.find('\n', start);
    ASSERT_NE(end, std::string::npos) << "last line unterminated";
    lines.push_back(listing.substr(start, end - start));
    start = end + 1;
  }
  const std::span<const Encoder> all = all_encoders();
  ASSERT_EQ(lines.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    SCOPED_TRACE(all[i].name);
    EXPECT_TRUE(lines[i].starts_with(std::string(all[i].name) + " ")) << lines[i];
    EXPECT_NE(lines[i].find(all[i].description), std::string::npos) << lines[i];
    EXPECT_EQ(lines[i].ends_with(" (not supported on this CPU)"), !all[i].is_supported()) << lines[i];
    EXPECT_EQ(lines[i].find(" (default)") != std::string::npos, all[i].name == fastest_encoder().name) << lines[i];
  }
  // --list wins over what follows it, as --help does.
  EXPECT_EQ(output_of({"--list", "--bogus"}), listing);
}

}  // namespace
}  // namespace tokenizer
