// build/bench_counts and scripts/counts run as child processes: the workloads' names, their runs
// outside valgrind, and a count under callgrind that repeats exactly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "process_runner.hpp"

namespace {

using tokenizer::test::lines_of;
using tokenizer::test::ProcessResult;
using tokenizer::test::run_process;

ProcessResult bench_counts(const std::vector<std::string>& args) { return run_process({TOKBENCH_BENCH_COUNTS_BINARY, args, "", {}}); }

TEST(BenchCounts, EveryWorkloadIsABenchmarkLessItsClockOrANewSdpaShape) {
  const ProcessResult list = bench_counts({"--list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const ProcessResult benchmarks = run_process({TOKBENCH_BENCHES_BINARY, {"--benchmark_list_tests"}, "", {}});
  ASSERT_EQ(benchmarks.exit_code, 0) << benchmarks.err;
  std::set<std::string> names;
  for (std::string name : lines_of(benchmarks.out)) {
    if (name.ends_with("/real_time")) name.resize(name.size() - std::string("/real_time").size());
    names.insert(name);
  }
  std::size_t workloads = 0;
  for (const std::string& line : lines_of(list.out)) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, std::regex("(\\S+) ([1-9][0-9]*)"))) << line;
    ++workloads;
    if (m[1].str().find("/kv_heads:") != std::string::npos) continue;
    EXPECT_TRUE(names.contains(m[1].str())) << m[1] << " names no benchmark";
  }
  // 11 encoding families, encode_batch and 5 cold families with 4 encoders, 3 scans, 3
  // vocabularies, decode, 3 implementations at 4 SDPA problems, decode at 2 decode shapes,
  // flash_bf16 at the 4 SDPA problems and decode_bf16 at one decode shape.
  EXPECT_EQ(workloads, 17 * 4 + 3 + 3 + 1 + 3 * 4 + 2 + 4 + 1);
}

TEST(BenchCounts, RunsAWorkloadOutsideValgrind) {
  const ProcessResult r = bench_counts({"medium_encoding/simd"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("^medium_encoding/simd: 10 iterations, [0-9.]+ ms each \\(not under callgrind")))
      << r.out;
}

TEST(BenchCounts, RefusesAnUnknownWorkloadAndBadUsage) {
  const ProcessResult unknown = bench_counts({"long_encoding/nothing"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no workload named 'long_encoding/nothing' (--list names them)"), std::string::npos)
      << unknown.err;
  EXPECT_EQ(bench_counts({}).exit_code, 2);
  const ProcessResult help = bench_counts({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Usage: bench_counts --list | --context | WORKLOAD"), std::string::npos);
}

TEST(BenchCounts, ContextNamesTheCapAndTheChosenIsa) {
  const ProcessResult r = run_process({TOKBENCH_BENCH_COUNTS_BINARY, {"--context"}, "", {{"TOKBENCH_MAX_ISA", "sse2"}}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"isa_cap\": \"sse2\", \"isa\": \"sse2\", \"simd_isa\": \"sse2\""), std::string::npos) << r.out;
}

// The instructions of `workload`, counted by scripts/counts under callgrind, written to and read
// back from `out`; -1 where none was.
long long count_once(const std::string& workload, const std::filesystem::path& out) {
  const ProcessResult r = run_process({TOKBENCH_COUNTS_SCRIPT,
                                       {"run", "--binary", TOKBENCH_BENCH_COUNTS_BINARY, "--filter",
                                        "^" + workload + "$", "--out", out.string()},
                                       "",
                                       {}});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[1/1] " + workload + ": "), std::string::npos) << r.out;
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string json = text.str();
  if (!std::regex_search(json, m, std::regex("\"instructions\": ([0-9]+)"))) return -1;
  return std::stoll(m[1].str());
}

// The tests that count under callgrind, each with a directory of its own for the counts' files.
class BenchCountsUnderCallgrind : public ::testing::Test {
 protected:
  BenchCountsUnderCallgrind()
      : dir_(std::filesystem::temp_directory_path() / ("bench_counts_test_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
  }
  ~BenchCountsUnderCallgrind() override { std::filesystem::remove_all(dir_); }
  void SetUp() override {
#ifdef TOKBENCH_SANITIZED
    GTEST_SKIP() << "valgrind cannot run a binary built with AddressSanitizer; the Release tests count";
#endif
  }
  // count_once of `workload`, its file named `file` in the directory.
  long long count(const std::string& workload, const std::string& file) const {
    return count_once(workload, dir_ / file);
  }

 private:
  std::filesystem::path dir_;
};

TEST_F(BenchCountsUnderCallgrind, CountsTheSameInstructionsTwice) {
  const long long first = count("short_encoding/simd", "first.json");
  const long long second = count("short_encoding/simd", "second.json");
  // One call of the 60-byte sentence takes a few thousand instructions.
  EXPECT_GT(first, 1000);
  EXPECT_LT(first, 100000);
  EXPECT_EQ(first, second);
}

// A cold workload counts only its encode, not the fresh tokenizer made before it, and the same
// instructions every time; and it counts what the warm workload of the same text never runs, the
// first occurrence of each piece (merges above all: long English has 7,577 distinct merged pieces
// and 7,681 distinct whole tokens), which the piece memo answers on every warm call.
TEST_F(BenchCountsUnderCallgrind, ColdWorkloadCountsTheFirstOccurrencesAlikeEachTime) {
  const long long cold = count("long_encoding/cold/simd", "cold.json");
  const long long again = count("long_encoding/cold/simd", "again.json");
  const long long warm = count("long_encoding/simd", "warm.json");
  EXPECT_EQ(cold, again);
  EXPECT_GT(warm, 0);
  EXPECT_GT(cold, warm + warm / 4);
  // Counted, the fresh tokenizer's making (the multilingual text it encodes first, about four
  // fifths of the warm count on AVX2) would add more than the room this leaves, where cold is about
  // half as much again as warm.
  EXPECT_LT(cold, 2 * warm);
}

}  // namespace
