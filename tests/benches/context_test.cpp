// build/benches run as a child process: the context it records beside the results, and the
// peak_fraction counter's definition against that context.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "process_runner.hpp"

namespace {

// The value of a string field of the JSON context, or "" (the context's values are strings).
std::string context_field(const std::string& json, const std::string& key) {
  std::smatch m;
  return std::regex_search(json, m, std::regex("\"" + key + "\": \"([^\"]*)\"")) ? m[1].str() : "";
}

// The value of a numeric field of the first benchmark row that has it.
double row_number(const std::string& json, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"" + key + "\": ([-+0-9.eE]+)"))) return -1;
  return std::stod(m[1].str());
}

tokenizer::test::ProcessResult run_benches(const std::string& filter,
                                           std::vector<std::pair<std::string, std::string>> env = {}) {
  return tokenizer::test::run_process(
      {TOKBENCH_BENCHES_BINARY,
       {"--benchmark_filter=" + filter, "--benchmark_min_time=0.01", "--benchmark_format=json"},
       "",
       std::move(env)});
}

TEST(BenchesContext, NamesTheBuildAndTheFmaPeak) {
  const tokenizer::test::ProcessResult r = run_benches("^calibration/fma_peak");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_match(context_field(r.out, "git_commit"), std::regex("[0-9a-f]{7,}(-dirty)?|unknown")))
      << context_field(r.out, "git_commit");
  EXPECT_FALSE(context_field(r.out, "build_type").empty());
  EXPECT_FALSE(context_field(r.out, "compiler").empty());
  EXPECT_TRUE(std::regex_match(context_field(r.out, "fma_peak_isa"), std::regex("avx512f|avx2|sse2")));
  EXPECT_TRUE(std::regex_match(context_field(r.out, "fma_peak_threads"), std::regex("[1-9][0-9]*")));
  const std::string peak = context_field(r.out, "fma_peak_gflops");
  ASSERT_TRUE(std::regex_match(peak, std::regex("[0-9]+\\.[0-9]"))) << peak;
  EXPECT_GT(std::stod(peak), 0.0);
  // The bfloat16 peak: AMX tiles' or vdpbf16ps's where the bfloat16 kernels take their products so,
  // else the float peak itself.
  const std::string bf16_isa = context_field(r.out, "bf16_peak_isa");
  const bool own_products = bf16_isa == "amxbf16" || bf16_isa == "avx512bf16";
  EXPECT_TRUE(own_products || bf16_isa == context_field(r.out, "fma_peak_isa")) << bf16_isa;
  const std::string bf16_peak = context_field(r.out, "bf16_peak_gflops");
  ASSERT_TRUE(std::regex_match(bf16_peak, std::regex("[0-9]+\\.[0-9]"))) << bf16_peak;
  if (!own_products) {
    EXPECT_EQ(bf16_peak, peak);
  }
}

// TOKBENCH_MAX_ISA caps every component's kernels alike.
TEST(BenchesContext, TheIsaCapPinsEveryKernel) {
  const tokenizer::test::ProcessResult r = run_benches("^calibration/fma_peak", {{"TOKBENCH_MAX_ISA", "sse2"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(context_field(r.out, "simd_isa"), "sse2");
  EXPECT_EQ(context_field(r.out, "fma_peak_isa"), "sse2");
  EXPECT_EQ(context_field(r.out, "bf16_peak_isa"), "sse2");
}

TEST(BenchesContext, AnUnknownIsaCapIsRefused) {
  const tokenizer::test::ProcessResult r = run_benches("^calibration/fma_peak", {{"TOKBENCH_MAX_ISA", "avx9"}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("TOKBENCH_MAX_ISA=avx9: not an instruction set; one of sse2, avx2, avx512f, avx512bw, avx512vbmi2, avx512bf16, amxbf16"),
            std::string::npos)
      << r.err;
}

// The benchmark selected by `filter` reports peak_fraction as its GFLOPS over the context's
// `peak_field`.
void expect_peak_fraction_over(const std::string& filter, const std::string& peak_field) {
  const tokenizer::test::ProcessResult r = run_benches(filter);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double peak = std::stod(context_field(r.out, peak_field));
  const double gflops = row_number(r.out, "GFLOPS");
  const double fraction = row_number(r.out, "peak_fraction");
  ASSERT_GT(gflops, 0.0) << r.out;
  // The context rounds the peak to 0.1 GFLOP/s.
  EXPECT_NEAR(fraction, gflops / peak, gflops / peak * 0.05 / peak + 1e-9) << r.out;
}

TEST(BenchesContext, PeakFractionIsGflopsOverTheContextPeak) {
  expect_peak_fraction_over("^sdpa/flash/batch:4/heads:8/seq_q:128/seq_k:128/dim:64/causal:0/", "fma_peak_gflops");
}

TEST(BenchesContext, Bfloat16PeakFractionIsGflopsOverTheBfloat16Peak) {
  expect_peak_fraction_over("^sdpa/flash_bf16/batch:4/heads:8/seq_q:128/seq_k:128/dim:64/causal:0/",
                            "bf16_peak_gflops");
}

// Decoding reports its bytes beside its flops: K and V of the shape per call, and their rate over
// the bandwidth the context records. batch 1, 8 key/value heads, 1,024 keys, 128 + 128 floats:
// 8 MiB a call.
TEST(BenchesContext, DecodeBandwidthFractionIsGbpsOverTheContextBandwidth) {
  const tokenizer::test::ProcessResult r =
      run_benches("^sdpa_decode/decode/batch:1/heads:32/kv_heads:8/seq_q:1/seq_k:1024/dim:128/");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string bandwidth = context_field(r.out, "memory_bandwidth_gbps");
  ASSERT_TRUE(std::regex_match(bandwidth, std::regex("[0-9]+\\.[0-9]"))) << r.out;
  // The layout the calibration found faster on this machine: one stream a task or eight.
  EXPECT_TRUE(std::regex_match(context_field(r.out, "memory_bandwidth_streams"), std::regex("1|8"))) << r.out;
  const double gbps = row_number(r.out, "GBps");
  const double gflops = row_number(r.out, "GFLOPS");
  ASSERT_GT(gbps, 0.0) << r.out;
  // Each key of a key/value head, 1 KiB of K and V, costs its 4 query heads 256 multiply-adds
  // each: 2,048 flops, 2 a byte.
  EXPECT_NEAR(gflops / gbps, 2.0, 1e-6) << r.out;
  EXPECT_NEAR(row_number(r.out, "bandwidth_fraction"), gbps / std::stod(bandwidth),
              gbps / std::stod(bandwidth) * 0.05 / std::stod(bandwidth) + 1e-9)
      << r.out;
}

// The 512 MiB of the bandwidth calibration are read only when something needs them.
TEST(BenchesContext, NoBandwidthMeasuredForTheTokenizer) {
  const tokenizer::test::ProcessResult r = run_benches("^short_encoding/serial$");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(context_field(r.out, "memory_bandwidth_gbps"), "") << r.out;
  EXPECT_EQ(context_field(r.out, "memory_bandwidth_streams"), "") << r.out;
}

}  // namespace
