// The `sdpa_tune` program, run as a child process: --help, every usage error's exit status and
// message, and a small sweep on the OpenCL device whose tuning file the library then reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <variant>
#include <vector>

#include "gpu/mma_sdpa.hpp"
#include "gpu/opencl_runtime.hpp"
#include "gpu/opencl_tuning.hpp"
#include "process_runner.hpp"
#include "test_directory.hpp"

namespace {

constexpr int kExitUsageError = 2;

tokenizer::test::ProcessResult run_tune(std::vector<std::string> args) {
  return tokenizer::test::run_process({TOKBENCH_SDPA_TUNE_BINARY, std::move(args), {}, {}});
}

TEST(SdpaTuneCli, HelpSaysWhatItDoes) {
  const tokenizer::test::ProcessResult r = run_tune({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* fact : {"usage: sdpa_tune", "opencl_tiled", "opencl_mma", "opencl_cpu", "--kernels LIST", "OPENCL_DEVICE", "OPENCL_TUNING_DIR", "--dims LIST",
                           "--seq N", "--repeats N", "--limit N", "--seconds N", "--out FOLDER", "stderr"}) {
    EXPECT_NE(r.out.find(fact), std::string::npos) << fact;
  }
  EXPECT_EQ(run_tune({"-h"}).out, r.out);
}

TEST(SdpaTuneCli, UsageErrorsExitWithTwoAndSayWhy) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--bogus"}, "sdpa_tune: unknown argument '--bogus'; see --help\n"},
      {{"--dims", "64,x"}, "sdpa_tune: --dims takes an integer from 1 to 256, not 'x'\n"},
      {{"--dims", "64,"}, "sdpa_tune: --dims takes an integer from 1 to 256, not ''\n"},
      {{"--dims=300"}, "sdpa_tune: --dims takes an integer from 1 to 256, not '300'\n"},
      {{"--seq", "0"}, "sdpa_tune: --seq takes an integer from 1 to 65536, not '0'\n"},
      {{"--repeats"}, "sdpa_tune: option --repeats needs a value\n"},
      {{"--seconds", "-1"}, "sdpa_tune: --seconds takes an integer from 1 to 1000000, not '-1'\n"},
      {{"--out", ""}, "sdpa_tune: --out takes a folder, not an empty string\n"},
      {{"--help=yes"}, "sdpa_tune: option --help takes no value\n"},
      {{"--kernels", "opencl_mma,opencl_flash"},
       "sdpa_tune: --kernels takes opencl_tiled, opencl_mma and opencl_cpu, not 'opencl_flash'\n"},
  };
  for (const auto& [args, message] : cases) {
    const tokenizer::test::ProcessResult r = run_tune(args);
    EXPECT_EQ(r.exit_code, kExitUsageError) << args[0];
    EXPECT_EQ(r.err, message);
    EXPECT_EQ(r.out, "");
  }
}

class SdpaTuneRun : public attention::test::TestDirectory {};

// Two candidates of a small dimension: each checked and timed, the file written under the
// device's name, parseable, with the faster of the two.
TEST_F(SdpaTuneRun, WritesTheDevicesTuningFile) {
  const tokenizer::test::ProcessResult r =
      run_tune({"--kernels", "opencl_tiled", "--dims", "16", "--seq", "64", "--repeats", "1", "--limit", "2", "--out",
                (dir() / "t").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[opencl_tiled, dim 16, 1/2] "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[opencl_tiled, dim 16, 2/2] "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(best so far)"), std::string::npos) << r.err;
  const std::string name = gpu::tuning_file_name(gpu::select_device_from_environment().name);
  std::ifstream file(dir() / "t" / name);
  ASSERT_TRUE(file) << "no " << name;
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::vector<gpu::TuningEntry> entries = gpu::parse_tuning(text, name);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].head_dim, 16u);
  EXPECT_EQ(entries[0].value_dim, 16u);
  EXPECT_NE(r.err.find(std::get<gpu::TiledSdpaParameters>(entries[0].parameters).to_string() + ": "), std::string::npos);
  EXPECT_EQ(text.rfind("# opencl_tiled on ", 0), 0u) << text;
}

// opencl_mma is tuned where the device has tensor cores, and refused with the reason elsewhere.
TEST_F(SdpaTuneRun, TunesOpenclMmaOnlyWhereTheDeviceHasTensorCores) {
  const tokenizer::test::ProcessResult r = run_tune(
      {"--kernels", "opencl_mma", "--dims", "16", "--seq", "64", "--repeats", "1", "--limit", "2"});
  if (!gpu::has_tf32_tensor_cores(gpu::default_runtime().limits())) {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("sdpa_tune: opencl_mma does not run on "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("tensor cores"), std::string::npos) << r.err;
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<gpu::TuningEntry> entries = gpu::parse_tuning(r.out, "stdout");
  ASSERT_EQ(entries.size(), 1u) << r.out;
  EXPECT_EQ(gpu::tuned_kernel_name(entries[0].parameters), "opencl_mma");
}

// Without --kernels a CPU device tunes opencl_cpu, the kernel it uses.
TEST_F(SdpaTuneRun, ACpuDeviceTunesOpenclCpuByDefault) {
  const gpu::DeviceInfo device = gpu::select_device_from_environment();
  if ((device.type & CL_DEVICE_TYPE_CPU) == 0) GTEST_SKIP() << "a GPU: " << device.describe();
  const tokenizer::test::ProcessResult r = run_tune({"--dims", "16", "--seq", "64", "--repeats", "1", "--limit", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[opencl_cpu, dim 16, 1/2] query_rows=4 (the default): "), std::string::npos) << r.err;
  const std::vector<gpu::TuningEntry> entries = gpu::parse_tuning(r.out, "stdout");
  ASSERT_EQ(entries.size(), 1u) << r.out;
  EXPECT_EQ(gpu::tuned_kernel_name(entries[0].parameters), "opencl_cpu");
}

}  // namespace
