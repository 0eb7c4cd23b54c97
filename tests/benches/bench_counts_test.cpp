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
  // 11 encoding families and encode_batch with 4 encoders, 3 scans, 3 vocabularies, decode,
  // 3 implementations at 4 SDPA problems, decode at 2 decode shapes, flash_bf16 at the 4 SDPA
  // problems and decode_bf16 at one decode shape.
  EXPECT_EQ(workloads, 12 * 4 + 3 + 3 + 1 + 3 * 4 + 2 + 4 + 1);
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

// The instructions of the workload, counted by scripts/counts under callgrind.
long long count_once(const std::filesystem::path& out) {
  const ProcessResult r = run_process({TOKBENCH_COUNTS_SCRIPT,
                                       {"run", "--binary", TOKBENCH_BENCH_COUNTS_BINARY, "--filter",
                                        "^short_encoding/simd$", "--out", out.string()},
                                       "",
                                       {}});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[1/1] short_encoding/simd: "), std::string::npos) << r.out;
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string json = text.str();
  if (!std::regex_search(json, m, std::regex("\"instructions\": ([0-9]+)"))) return -1;
  return std::stoll(m[1].str());
}

TEST(BenchCounts, CallgrindCountsTheSameInstructionsTwice) {
#ifdef TOKBENCH_SANITIZED
  GTEST_SKIP() << "valgrind cannot run a binary built with AddressSanitizer; the Release tests count";
#endif
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("bench_counts_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const long long first = count_once(dir / "first.json");
  const long long second = count_once(dir / "second.json");
  std::filesystem::remove_all(dir);
  // One call of the 60-byte sentence takes a few thousand instructions.
  EXPECT_GT(first, 1000);
  EXPECT_LT(first, 100000);
  EXPECT_EQ(first, second);
}

}  // namespace
