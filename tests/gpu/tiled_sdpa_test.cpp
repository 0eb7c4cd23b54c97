// opencl_tiled beyond the agreement grid (which runs the device's chosen parameters): its
// parameter rules, every block shape against the reference, tuning files and the calibration
// kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/implementation_registry.hpp"
#include "attention/uniform_values.hpp"
#include "gpu/device_attention_problem.hpp"
#include "gpu/device_calibration.hpp"
#include "gpu/opencl_launch.hpp"
#include "gpu/opencl_tuning.hpp"
#include "gpu/tiled_sdpa.hpp"
#include "masked_problem.hpp"
#include "opencl_test_fixture.hpp"

namespace {

using attention::AttentionShape;
using attention::uniform_values;
using attention::CausalAlignment;
using gpu::TiledSdpaParameters;

// An NVIDIA GPU's limits through OpenCL (48 KiB of local memory) and PoCL's on a CPU.
constexpr gpu::DeviceLimits kGpuLimits{49152, 1024, std::size_t{1} << 30, 1, 132};
constexpr gpu::DeviceLimits kCpuLimits{4u << 20, 4096, std::size_t{1} << 30, 8, 2};

TEST(TiledParameters, EveryCandidateIsUsableAndDistinct) {
  for (const gpu::DeviceLimits& limits : {kGpuLimits, kCpuLimits}) {
    for (const std::size_t dim : {32, 64, 80, 128}) {
      const std::vector<TiledSdpaParameters> candidates = gpu::tiled_parameter_candidates(dim, dim, limits);
      ASSERT_GT(candidates.size(), 20u) << "dim " << dim;
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        EXPECT_EQ(gpu::tiled_parameters_problem(candidates[i], dim, dim, limits), "") << candidates[i].to_string();
        EXPECT_GE(candidates[i].items(), 64u);
        for (std::size_t j = 0; j < i; ++j) EXPECT_NE(candidates[i], candidates[j]);
      }
    }
  }
}

TEST(TiledParameters, TheDefaultFitsEveryDimensionOfTheTests) {
  for (const auto& [limits, cpu_device] : {std::pair{kGpuLimits, false}, {kCpuLimits, true}, {kCpuLimits, false}}) {
    for (const auto& [head_dim, value_dim] : {std::pair<std::size_t, std::size_t>{3, 5}, {64, 64}, {128, 128},
                                              {256, 256}, {128, 256}, {32, 128}}) {
      const TiledSdpaParameters parameters = gpu::default_tiled_parameters(head_dim, value_dim, limits, cpu_device);
      EXPECT_EQ(gpu::tiled_parameters_problem(parameters, head_dim, value_dim, limits), "")
          << head_dim << "x" << value_dim << ": " << parameters.to_string();
    }
  }
  EXPECT_EQ(gpu::default_tiled_parameters(64, 64, kGpuLimits, false), (TiledSdpaParameters{128, 16, 4, 4, 1, 1, 1}));
  EXPECT_EQ(gpu::default_tiled_parameters(64, 64, kCpuLimits, true), (TiledSdpaParameters{32, 16, 2, 2, 1, 1, 0}));
  const gpu::DeviceLimits tiny{1024, 64, std::size_t{1} << 30, 1, 1};
  EXPECT_THROW(gpu::default_tiled_parameters(256, 256, tiny, false), std::runtime_error);
  EXPECT_THROW(gpu::default_tiled_parameters(256, 256, tiny, true), std::runtime_error);
}

TEST(TiledParameters, ProblemsSayWhatIsWrong) {
  const auto problem = [](TiledSdpaParameters p, const gpu::DeviceLimits& limits = kGpuLimits) {
    return gpu::tiled_parameters_problem(p, 64, 64, limits);
  };
  EXPECT_EQ(problem({64, 32, 4, 4, 1, 1, 1}), "");
  EXPECT_NE(problem({64, 32, 6, 4, 1, 1, 1}).find("multiple of 4"), std::string::npos);
  EXPECT_NE(problem({66, 33, 2, 3, 1, 1, 1}).find("multiples of 4"), std::string::npos);
  EXPECT_NE(problem({64, 32, 4, 4, 2, 1, 1}).find("0 or 1"), std::string::npos);
  EXPECT_NE(problem({64, 32, 4, 4, 1, 2, 1}).find("0 or 1"), std::string::npos);
  EXPECT_NE(problem({64, 32, 4, 4, 1, 1, 2}).find("0 or 1"), std::string::npos);
  EXPECT_NE(gpu::tiled_parameters_problem({64, 32, 4, 4, 1, 0, 1}, 64, 30, kGpuLimits).find("value_dim"),
            std::string::npos);
  EXPECT_NE(problem({128, 128, 1, 1, 1, 1, 0}).find("work-items"), std::string::npos);
  EXPECT_NE(problem({128, 128, 8, 8, 1, 1, 0}).find("local memory"), std::string::npos);
  EXPECT_NE(problem({64, 64, 8, 8, 0, 1, 1}, kCpuLimits).find("floats held"), std::string::npos);
  // 64 queries x 64 dims + 64 keys x (64 + 4) weights + 64 x 64 values + 8 x 64 partials.
  EXPECT_EQ((TiledSdpaParameters{64, 64, 8, 8, 1, 1, 0}.local_memory_bytes(64, 64)),
            (64 * 64 + 64 * 68 + 64 * 64 + 8 * 64) * sizeof(float));
  EXPECT_EQ((TiledSdpaParameters{64, 64, 8, 8, 0, 0, 0}.local_memory_bytes(64, 64)), (64 * 68 + 8 * 64) * sizeof(float));
  EXPECT_EQ((TiledSdpaParameters{64, 64, 8, 8, 1, 1, 0}.value_columns_per_item(20)), 4u);
  EXPECT_EQ((TiledSdpaParameters{64, 16, 8, 2, 1, 1, 0}.value_columns_per_item(80)), 12u);
}

TEST(TuningFile, NamesComeFromTheDeviceName) {
  EXPECT_EQ(gpu::tuning_file_name("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3.tuning");
  EXPECT_EQ(gpu::tuning_file_name("pthread-haswell-AMD EPYC"), "pthread-haswell-amd-epyc.tuning");
  EXPECT_EQ(gpu::tuning_file_name("  AMD Radeon (TM) --"), "amd-radeon-tm.tuning");
  EXPECT_EQ(gpu::tuning_file_name("()"), "device.tuning");
}

TEST(TuningFile, FormatAndParseRoundTrip) {
  const std::vector<gpu::TuningEntry> entries{{64, 64, TiledSdpaParameters{128, 16, 4, 4, 1, 1, 1}},
                                              {128, 96, TiledSdpaParameters{64, 32, 8, 4, 0, 0, 1}},
                                              {64, 64, gpu::MmaSdpaParameters{8, 64, true, false}},
                                              {128, 128, gpu::MmaSdpaParameters{4, 16, false, true}},
                                              {64, 64, gpu::CpuSdpaParameters{6}}};
  const std::string text = gpu::format_tuning("a comment", entries);
  EXPECT_EQ(text.substr(0, 12), "# a comment\n");
  EXPECT_NE(text.find("\nopencl_mma head_dim=64 value_dim=64 warps=8 key_tile=64 query_split=1 prefetch=0\n"),
            std::string::npos)
      << text;
  const std::vector<gpu::TuningEntry> parsed = gpu::parse_tuning(text + "\n  # more\n\n", "test");
  ASSERT_EQ(parsed.size(), entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(parsed[i].head_dim, entries[i].head_dim);
    EXPECT_EQ(parsed[i].value_dim, entries[i].value_dim);
    EXPECT_EQ(parsed[i].parameters, entries[i].parameters);
  }
  EXPECT_EQ(gpu::tuned_kernel_name(parsed[0].parameters), "opencl_tiled");
  EXPECT_EQ(gpu::tuned_kernel_name(parsed[2].parameters), "opencl_mma");
  EXPECT_EQ(gpu::tuned_kernel_name(parsed[4].parameters), "opencl_cpu");
  EXPECT_NE(text.find("\nopencl_cpu head_dim=64 value_dim=64 query_rows=6\n"), std::string::npos) << text;
}

// Files written before opencl_mma have no kernel names: their lines are opencl_tiled's.
TEST(TuningFile, LinesWithoutAKernelAreOpenclTiled) {
  const std::vector<gpu::TuningEntry> parsed = gpu::parse_tuning(
      "head_dim=64 value_dim=64 query_tile=128 key_tile=16 rows_per_item=4 columns_per_item=4 stage_queries=1 "
      "stage_values=1 prefetch=1",
      "f");
  ASSERT_EQ(parsed.size(), 1u);
  EXPECT_EQ(parsed[0].parameters, gpu::KernelParameters(TiledSdpaParameters{128, 16, 4, 4, 1, 1, 1}));
}

TEST(TuningFile, MalformedLinesNameTheFileAndLine) {
  const std::string good = "head_dim=64 value_dim=64 query_tile=64 key_tile=32 rows_per_item=4 columns_per_item=4 "
                           "stage_queries=1 stage_values=0 prefetch=0";
  const std::string mma = "opencl_mma head_dim=64 value_dim=64 warps=8 key_tile=64 query_split=1 prefetch=1";
  EXPECT_EQ(gpu::parse_tuning(good, "f").size(), 1u);
  EXPECT_EQ(gpu::parse_tuning("opencl_tiled " + good + "\n" + mma, "f").size(), 2u);
  const std::pair<std::string, std::string> cases[] = {
      {"# c\n" + good + " extra=1", "f:2: 'extra=1' is not one of head_dim=N value_dim=N query_tile=N"},
      {good.substr(0, good.find(" prefetch")), "f:1: no prefetch="},
      {"head_dim=0" + good.substr(good.find(' ')), "f:1: head_dim must be a positive integer, not '0'"},
      {"head_dim=x" + good.substr(good.find(' ')), "f:1: head_dim must be a positive integer, not 'x'"},
      {good.substr(0, good.find("prefetch")) + "prefetch=2", "f:1: prefetch must be 0 or 1, not '2'"},
      {"head_dim 64", "f:1: 'head_dim' is not a tunable kernel (opencl_tiled, opencl_mma, opencl_cpu)"},
      {"opencl_cpu head_dim=64 value_dim=64 query_rows=0", "f:1: query_rows must be a positive integer, not '0'"},
      {"opencl_cpu head_dim=64 value_dim=64", "f:1: no query_rows="},
      {"opencl_naive " + good, "f:1: 'opencl_naive' is not a tunable kernel"},
      {mma + " stage_values=1", "f:1: 'stage_values=1' is not one of head_dim=N value_dim=N warps=N key_tile=N "
                                "query_split=N prefetch=N (opencl_mma)"},
      {mma.substr(0, mma.find(" query_split")), "f:1: no query_split="},
      {"opencl_mma " + good, "f:1: 'query_tile=64' is not one of"},
  };
  for (const auto& [text, message] : cases) {
    try {
      gpu::parse_tuning(text, "f");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::runtime_error& error) {
      EXPECT_EQ(std::string(error.what()).substr(0, message.size()), message);
    }
  }
}

// Entry by entry: the first file that has one for the kernel and dimensions gives it.
TEST(TuningFile, EachEntryComesFromTheFirstFileThatHasIt) {
  const std::string directory = "opencl_mma head_dim=64 value_dim=64 warps=4 key_tile=16 query_split=0 prefetch=0\n";
  const std::string shipped =
      "opencl_mma head_dim=64 value_dim=64 warps=8 key_tile=64 query_split=1 prefetch=1\n"
      "opencl_tiled head_dim=64 value_dim=64 query_tile=128 key_tile=16 rows_per_item=4 columns_per_item=4 "
      "stage_queries=1 stage_values=1 prefetch=1\n";
  const gpu::TuningText files[] = {{directory, "dir"}, {shipped, "shipped"}};
  EXPECT_EQ(gpu::find_tuned_parameters(files, "opencl_mma", 64, 64),
            gpu::KernelParameters(gpu::MmaSdpaParameters{4, 16, false, false}));
  EXPECT_EQ(gpu::find_tuned_parameters(files, "opencl_tiled", 64, 64),
            gpu::KernelParameters(TiledSdpaParameters{128, 16, 4, 4, 1, 1, 1}));
  EXPECT_EQ(gpu::find_tuned_parameters(files, "opencl_tiled", 128, 128), std::nullopt);
}

TEST(TuningFile, ShippedFilesParse) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(GPU_TUNING_DIR)) {
    if (entry.path().extension() != ".tuning") continue;
    ++files;
    std::ifstream file(entry.path());
    const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    EXPECT_FALSE(gpu::parse_tuning(text, entry.path().string()).empty()) << entry.path();
  }
  EXPECT_GT(files, 0u);
}

// A problem where every feature counts: grouped queries, fewer queries than keys under a
// bottom-right causal limit, a mask with -inf and fully masked rows, sizes no tile divides, a
// value dimension other than the head dimension (a multiple of 4, for stage_values=0).
// Every block width below a group (1, 2) and of whole groups (4, 8) in rows and columns, every
// flag both ways, query tiles of 16 to 64 and key tiles of 16 to 64; each fits both kinds of
// device on both shapes. (Larger blocks cost PoCL seconds of compilation each, and run in the
// agreement grid on GPUs with the tuned or default parameters.)
constexpr TiledSdpaParameters kSweep[] = {{16, 64, 1, 8, 1, 1, 1}, {32, 16, 2, 1, 1, 0, 0}, {64, 16, 4, 2, 0, 0, 1},
                                          {64, 16, 8, 1, 0, 1, 0}};
constexpr AttentionShape kSweepShapes[] = {{1, 4, 2, 100, 300, 80, 20}, {2, 2, 1, 33, 17, 64, 64}};

TEST(TiledParameters, TheSweepFitsAGpuAndACpu) {
  for (const TiledSdpaParameters& parameters : kSweep) {
    for (const AttentionShape& shape : kSweepShapes) {
      for (const gpu::DeviceLimits& limits : {kGpuLimits, kCpuLimits}) {
        EXPECT_EQ(gpu::tiled_parameters_problem(parameters, shape.head_dim, shape.value_dim, limits), "")
            << parameters.to_string() << " for " << shape.head_dim << "x" << shape.value_dim;
      }
    }
  }
}

class TiledBlockShapes : public gpu_tests::OpenClTest, public ::testing::WithParamInterface<TiledSdpaParameters> {};

TEST_P(TiledBlockShapes, MatchTheReference) {
  const TiledSdpaParameters& parameters = GetParam();
  for (const AttentionShape& shape : kSweepShapes) {
    SCOPED_TRACE(std::to_string(shape.head_dim) + "x" + std::to_string(shape.value_dim));
    ASSERT_EQ(gpu::tiled_parameters_problem(parameters, shape.head_dim, shape.value_dim, runtime().limits()), "");
    const gpu_tests::MaskedProblem data(shape);
    std::vector<float> out(shape.out_elements());
    const auto prepared = gpu::prepare_tiled_sdpa(runtime(), shape, parameters);
    gpu_tests::expect_close_to_reference(gpu_tests::run_prepared(runtime(), data.problem(out), *prepared), data.expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Sweep, TiledBlockShapes, ::testing::ValuesIn(kSweep),
                         [](const ::testing::TestParamInfo<TiledSdpaParameters>& info) {
                           const TiledSdpaParameters& p = info.param;
                           return "q" + std::to_string(p.query_tile) + "_k" + std::to_string(p.key_tile) + "_" +
                                  std::to_string(p.rows_per_item) + "x" + std::to_string(p.columns_per_item) + "_s" +
                                  std::to_string(p.stage_queries) + std::to_string(p.stage_values) + "_p" +
                                  std::to_string(p.prefetch);
                         });

using TiledTuning = gpu_tests::OpenClTest;

// A tuning file in $OPENCL_TUNING_DIR wins over the defaults; an entry the device cannot run does
// not.
TEST_F(TiledTuning, TheTuningDirectoryIsReadFirst) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "tiled_sdpa_test_tuning";
  std::filesystem::create_directories(folder);
  const TiledSdpaParameters tuned{32, 16, 2, 1, 0, 0, 0};
  const std::vector<gpu::TuningEntry> entries{{48, 24, tuned}, {48, 40, TiledSdpaParameters{1024, 1024, 1, 1, 1, 1, 1}}};
  std::ofstream(folder / gpu::tuning_file_name(runtime().device().name)) << gpu::format_tuning("test", entries);
  ASSERT_EQ(setenv(gpu::kTuningDirectoryVariable, folder.c_str(), 1), 0);
  const AttentionShape tuned_shape{1, 1, 1, 8, 8, 48, 24};
  const AttentionShape unusable_shape{1, 1, 1, 8, 8, 48, 40};
  const TiledSdpaParameters chosen = gpu::chosen_tiled_parameters(runtime(), tuned_shape);
  const TiledSdpaParameters fallback = gpu::chosen_tiled_parameters(runtime(), unusable_shape);
  unsetenv(gpu::kTuningDirectoryVariable);
  std::filesystem::remove_all(folder);
  EXPECT_EQ(chosen, tuned);
  EXPECT_EQ(fallback, gpu::default_tiled_parameters(48, 40, runtime().limits(),
                                                    (runtime().device().type & CL_DEVICE_TYPE_CPU) != 0));
}

using DeviceCalibration = gpu_tests::OpenClTest;

TEST_F(DeviceCalibration, PeakAndBandwidthArePositiveAndFinite) {
  const double gflops = gpu::measure_fma_peak_gflops(runtime());
  const double gbps = gpu::measure_memory_bandwidth_gbps(runtime());
  EXPECT_TRUE(std::isfinite(gflops) && gflops > 0) << gflops;
  EXPECT_TRUE(std::isfinite(gbps) && gbps > 0) << gbps;
}

}  // namespace
