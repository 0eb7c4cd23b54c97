// build/benches run as a child process: what BENCHES_ERROR_LOG receives, and that a failing
// benchmark is reported instead of ending the run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "process_runner.hpp"

namespace {

namespace fs = std::filesystem;

class BenchesErrorLog : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("benches_error_log_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(directory_);
    fs::create_directories(directory_ / "empty_data");
  }
  void TearDown() override { fs::remove_all(directory_); }

  // Runs two tokenizer benchmarks briefly with the given environment, in the test's folder.
  tokenizer::test::ProcessResult run_benches(std::vector<std::pair<std::string, std::string>> env) {
    const fs::path previous = fs::current_path();
    fs::current_path(directory_);
    const tokenizer::test::ProcessResult result = tokenizer::test::run_process(
        {TOKBENCH_BENCHES_BINARY,
         {"--benchmark_filter=^(short|medium)_encoding/serial$", "--benchmark_min_time=0.01"},
         "",
         std::move(env)});
    fs::current_path(previous);
    return result;
  }

  static std::string read(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
  }

  fs::path directory_;
};

TEST_F(BenchesErrorLog, FailingBenchmarksAreAppendedWithTimestamps) {
  const fs::path log = directory_ / "errors.log";
  std::ofstream(log) << "an earlier line\n";
  const tokenizer::test::ProcessResult r =
      run_benches({{"TOKENIZER_DATA_DIR", (directory_ / "empty_data").string()}, {"BENCHES_ERROR_LOG", log.string()}});
  // A benchmark that fails is reported; the run goes on to the next one and ends normally.
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read(log);
  const std::regex line(
      R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ error: (short|medium)_encoding/serial: .*cl100k_base\.tiktoken: cannot open vocabulary file.*\n)");
  std::vector<std::string> errors;
  for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it) errors.push_back((*it)[1]);
  EXPECT_EQ(errors, (std::vector<std::string>{"short", "medium"})) << text;
  EXPECT_TRUE(text.starts_with("an earlier line\n")) << text;
  EXPECT_NE(r.err.find("benches: error: short_encoding/serial: "), std::string::npos) << r.err;
}

TEST_F(BenchesErrorLog, OneMeansBenchesErrorLogInTheCurrentFolder) {
  const tokenizer::test::ProcessResult r =
      run_benches({{"TOKENIZER_DATA_DIR", (directory_ / "empty_data").string()}, {"BENCHES_ERROR_LOG", "1"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read(directory_ / "benches-error.log").find(" error: short_encoding/serial: "), std::string::npos);
}

TEST_F(BenchesErrorLog, UnopenableLogFailsBeforeAnyBenchmark) {
  const tokenizer::test::ProcessResult r =
      run_benches({{"BENCHES_ERROR_LOG", (directory_ / "missing" / "errors.log").string()}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("benches: error: BENCHES_ERROR_LOG: cannot open " + (directory_ / "missing" / "errors.log").string() +
                       " for appending: No such file or directory"),
            std::string::npos)
      << r.err;
}

TEST_F(BenchesErrorLog, WithoutTheVariableAFailureGoesToStderrOnly) {
  const tokenizer::test::ProcessResult r = run_benches({{"TOKENIZER_DATA_DIR", (directory_ / "empty_data").string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("benches: error: medium_encoding/serial: "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(directory_ / "benches-error.log"));
}

}  // namespace
