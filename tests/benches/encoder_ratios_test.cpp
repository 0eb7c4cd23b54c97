// build/encoder_ratios run as a child process: its arguments, and the shape of its table.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "process_runner.hpp"
#include "tokenizer/encoder_registry.hpp"

namespace {

tokenizer::test::ProcessResult run_ratios(std::vector<std::string> args) {
  return tokenizer::test::run_process({TOKBENCH_ENCODER_RATIOS_BINARY, std::move(args), "", {}});
}

TEST(EncoderRatios, HelpGoesToStandardOutput) {
  const tokenizer::test::ProcessResult r = run_ratios({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("Usage: encoder_ratios", 0), 0u) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(EncoderRatios, BadArgumentsAreUsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--bogus"}, "encoder_ratios: unknown argument '--bogus' (see --help)\n"},
      {{"--rounds"}, "encoder_ratios: --rounds needs a value (see --help)\n"},
      {{"--encoding"}, "encoder_ratios: --encoding needs a value (see --help)\n"},
      {{"--rounds", "0"}, "encoder_ratios: --rounds needs a positive integer, not '0'\n"},
      {{"--rounds", "3x"}, "encoder_ratios: --rounds needs a positive integer, not '3x'\n"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(args[0]);
    const tokenizer::test::ProcessResult r = run_ratios(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, message);
    EXPECT_EQ(r.out, "");
  }
}

TEST(EncoderRatios, UnknownEncodingIsNamed) {
  const tokenizer::test::ProcessResult r = run_ratios({"--encoding", "nope"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown encoding 'nope'"), std::string::npos) << r.err;
}

// A row per input (and long English's first calls after it), then the adversarial row, with a
// cell per encoder column, then long English cold and the cold adversarial row, then the
// yardstick line of the parallel encoders. In every cell the MB/s is the ns/byte turned around
// (10^3 / ns), as printed to their precision; serial is the first column and the reference of the
// speeds, so its own reads 1.00x.
TEST(EncoderRatios, OneRowPerInputAndACellPerEncoder) {
  const tokenizer::test::ProcessResult r = run_ratios({"--rounds", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = tokenizer::test::lines_of(r.out);
  ASSERT_EQ(lines.size(), 15u) << r.out;
  EXPECT_EQ(lines[0].rfind("cl100k_base, 3 rounds;", 0), 0u) << lines[0];
  ASSERT_TRUE(std::regex_match(lines[1], std::regex("input +serial( +[a-z_]+)+"))) << lines[1];
  const std::regex word("[a-z_]+");
  const auto columns = static_cast<std::size_t>(
      std::distance(std::sregex_iterator(lines[1].begin(), lines[1].end(), word), std::sregex_iterator()) - 1);
  const char* inputs[] = {"short", "medium", "long", "long-1st", "letters", "digits", "spaces", "base64", "", "long-cold"};
  const std::regex cell("([0-9]+\\.[0-9]{2}) ns/B +([0-9]+\\.[0-9]) MB/s +([0-9]+\\.[0-9]{2})x");
  for (std::size_t k = 0; k < std::size(inputs); ++k) {
    if (*inputs[k] == '\0') continue;  // the adversarial row, below
    const std::string& line = lines[2 + k];
    SCOPED_TRACE(line);
    EXPECT_EQ(line.rfind(inputs[k], 0), 0u);
    std::size_t cells = 0;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), cell); it != std::sregex_iterator(); ++it, ++cells) {
      const double ns = std::stod((*it)[1].str());
      const double mb = std::stod((*it)[2].str());
      ASSERT_GT(ns, 0.005);
      // ns is rounded to 0.005 and MB/s to 0.05, so the MB/s lies within 10^3 / (ns +- 0.005),
      // +- 0.05: a band that widens fast as ns nears 0 (a cached megabyte reads 0.08 ns/B, where
      // 10^3 / ns moves by 700 MB/s), which a first-order bound (5 / ns^2) undercut.
      EXPECT_GE(mb, 1e3 / (ns + 0.005) - 0.05);
      EXPECT_LE(mb, 1e3 / (ns - 0.005) + 0.05);
      if (cells == 0) {
        EXPECT_EQ((*it)[3].str(), "1.00");
      }
    }
    EXPECT_EQ(cells, columns);
  }
  const std::regex worst_row("(worst/long|worst-cold)( +[0-9]+\\.[0-9]{2}x)+");
  for (const std::size_t row : {10u, 12u}) {
    std::smatch worst;
    EXPECT_TRUE(std::regex_match(lines[row], worst, worst_row)) << lines[row];
    EXPECT_EQ(worst[1].str(), row == 10 ? "worst/long" : "worst-cold");
    const std::string& cells = lines[row];
    EXPECT_EQ(static_cast<std::size_t>(std::count(cells.begin(), cells.end(), 'x')), columns) << cells;
  }
  // One speed-up per multithreaded encoder, over the counterpart the registry names; then the
  // yardsticks: the same counterparts, each on the parts of long English at once.
  std::string expected_threads = "threads";
  std::string expected_yardsticks = "([0-9]+) threads: long in ([0-9]+) parts, each part encoded at once";
  std::string separator;
  for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders()) {
    if (!encoder->multithreaded()) continue;
    const std::string counterpart(encoder->single_threaded_counterpart);
    expected_threads += " +[0-9]+\\.[0-9]{2}x over " + counterpart;
    expected_yardsticks += separator + " by " + counterpart + ": [0-9]+\\.[0-9]{2} ns/B [0-9]+\\.[0-9]{2}x";
    separator = ";";
  }
  EXPECT_TRUE(std::regex_match(lines[13], std::regex(expected_threads + " *"))) << lines[13];
  std::smatch yardstick;
  ASSERT_TRUE(std::regex_match(lines[14], yardstick, std::regex(expected_yardsticks))) << lines[14];
  EXPECT_EQ(std::stoul(yardstick[2].str()), 4 * std::stoul(yardstick[1].str()));
}

}  // namespace
