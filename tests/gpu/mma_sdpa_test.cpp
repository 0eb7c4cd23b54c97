// opencl_mma beyond the agreement grid (which runs it only where the device has tensor cores):
// its kernel with the warp-level instructions emulated, on any device (PoCL in CI), so that every
// index, the TF32 split and the online softmax are checked without a GPU; natively where the
// device has tensor cores; its parameter rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/implementation_registry.hpp"
#include "attention/uniform_values.hpp"
#include "gpu/device_attention_problem.hpp"
#include "gpu/mma_sdpa.hpp"
#include "gpu/opencl_launch.hpp"
#include "non_finite_semantics.hpp"
#include "masked_problem.hpp"
#include "opencl_test_fixture.hpp"

namespace {

using attention::AttentionShape;
using attention::CausalAlignment;
using attention::uniform_values;
using gpu::MmaSdpaParameters;

gpu::DeviceLimits limits_with(std::size_t local_memory_bytes, unsigned compute_capability) {
  gpu::DeviceLimits limits{local_memory_bytes, 1024, std::size_t{1} << 30, 1, 132};
  limits.nvidia_compute_capability = compute_capability;
  return limits;
}

TEST(MmaParameters, TensorCoresFromComputeCapabilityEight) {
  EXPECT_TRUE(gpu::has_tf32_tensor_cores(limits_with(49152, 90)));
  EXPECT_TRUE(gpu::has_tf32_tensor_cores(limits_with(49152, 80)));
  EXPECT_FALSE(gpu::has_tf32_tensor_cores(limits_with(49152, 75)));
  EXPECT_FALSE(gpu::has_tf32_tensor_cores(limits_with(49152, 0)));
}

TEST(MmaParameters, TheDefaultIsTheFastestThatFits) {
  const gpu::DeviceLimits nvidia = limits_with(49152, 90);
  const auto tile = [&](std::size_t head_dim, std::size_t value_dim) {
    return gpu::default_mma_parameters(head_dim, value_dim, nvidia).key_tile;
  };
  EXPECT_EQ(tile(64, 64), 64u);
  EXPECT_EQ(tile(80, 80), 16u);
  EXPECT_EQ(tile(128, 128), 16u);
  EXPECT_EQ(tile(256, 256), 16u);
  EXPECT_EQ(gpu::default_mma_parameters(64, 64, limits_with(16384, 90)).key_tile, 16u);
  const MmaSdpaParameters chosen = gpu::default_mma_parameters(64, 64, nvidia);
  EXPECT_EQ(chosen.warps, 8u);
  EXPECT_TRUE(chosen.query_split && chosen.prefetch && !chosen.emulate);
  // 32 keys x ((128 + 8) + (128 + 4)) floats.
  EXPECT_EQ((MmaSdpaParameters{4, 32}.local_memory_bytes(128, 128)), 32u * (136 + 132) * sizeof(float));
  EXPECT_EQ((MmaSdpaParameters{2, 8, true, false, true}.local_memory_bytes(3, 5)),
            (8u * (16 + 12) + 2 * 6 * 32) * sizeof(float));
  EXPECT_THROW(gpu::default_mma_parameters(256, 256, limits_with(1024, 90)), std::runtime_error);
}

TEST(MmaParameters, EveryCandidateIsUsableAndDistinctTheDefaultFirst) {
  const gpu::DeviceLimits nvidia = limits_with(49152, 90);
  for (const std::size_t dim : {64, 128}) {
    const std::vector<MmaSdpaParameters> candidates = gpu::mma_parameter_candidates(dim, dim, nvidia);
    ASSERT_GE(candidates.size(), 12u) << "dim " << dim;
    EXPECT_EQ(candidates.front(), gpu::default_mma_parameters(dim, dim, nvidia));
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      EXPECT_EQ(gpu::mma_parameters_problem(candidates[i], dim, dim, nvidia), "") << candidates[i].to_string();
      for (std::size_t j = 0; j < i; ++j) EXPECT_NE(candidates[i], candidates[j]);
    }
  }
  EXPECT_TRUE(gpu::mma_parameter_candidates(64, 64, limits_with(49152, 75)).empty());
}

TEST(MmaParameters, ProblemsSayWhatIsWrong) {
  const gpu::DeviceLimits nvidia = limits_with(49152, 90);
  const auto problem = [&](MmaSdpaParameters p, const gpu::DeviceLimits& limits) {
    return gpu::mma_parameters_problem(p, 128, 128, limits);
  };
  EXPECT_EQ(problem({8, 16}, nvidia), "");
  EXPECT_NE(problem({8, 12}, nvidia).find("8, 16, 32 or 64"), std::string::npos);
  EXPECT_NE(problem({9, 16}, nvidia).find("1 to 8"), std::string::npos);
  EXPECT_NE(problem({8, 64}, nvidia).find("local memory"), std::string::npos);
  gpu::DeviceLimits small_groups = nvidia;
  small_groups.max_work_group_size = 128;
  EXPECT_NE(problem({8, 16}, small_groups).find("256 work-items"), std::string::npos);
  EXPECT_NE(problem({8, 16}, limits_with(49152, 0)).find("no TF32 tensor cores"), std::string::npos);
  EXPECT_EQ(problem({8, 16, true, true, true}, limits_with(49152, 0)), "") << "emulation runs anywhere";
}

constexpr AttentionShape kMmaShapes[] = {
    {1, 4, 2, 100, 300, 80, 20}, {2, 2, 1, 33, 17, 64, 64}, {1, 2, 2, 70, 45, 3, 5}, {1, 8, 1, 16, 40, 128, 128}};

// One warp to eight, every key tile.
constexpr MmaSdpaParameters kMmaSweep[] = {{1, 8, true, false, true},  {2, 16, false, true, true},
                                        {4, 32, true, true, true},   {8, 64, false, false, true},
                                        {8, 16, true, false, true}};

std::vector<float> run_mma(gpu::OpenClRuntime& runtime, const attention::AttentionProblem& problem,
                           const MmaSdpaParameters& parameters) {
  return gpu_tests::run_prepared(runtime, problem, *gpu::prepare_mma_sdpa(runtime, problem.shape, parameters));
}

}  // namespace

namespace gpu {
// For gtest's messages.
void PrintTo(const MmaSdpaParameters& parameters, std::ostream* out) { *out << parameters.to_string(); }
}  // namespace gpu

namespace {

class MmaKernel : public gpu_tests::OpenClTest, public ::testing::WithParamInterface<MmaSdpaParameters> {};

// Each parameter set on two of the shapes, the next set on the next two, so that every shape meets
// two or three of the sets: PoCL builds the emulated kernel anew for every shape, seconds each on a
// cold cache, and the whole cross product was a large part of CI's tests.
TEST_P(MmaKernel, EmulatedAndNativeMatchTheReference) {
  const auto set = static_cast<std::size_t>(std::find(std::begin(kMmaSweep), std::end(kMmaSweep), GetParam()) -
                                            std::begin(kMmaSweep));
  constexpr std::size_t kShapes = std::size(kMmaShapes);
  std::size_t shapes_run = 0;
  for (const AttentionShape& shape : {kMmaShapes[set % kShapes], kMmaShapes[(set + 1) % kShapes]}) {
    SCOPED_TRACE(std::to_string(shape.head_dim) + "x" + std::to_string(shape.value_dim));
    // 48 KiB of local memory (NVIDIA's) holds no 64-key tiles of 128 dimensions.
    if (GetParam().local_memory_bytes(shape.head_dim, shape.value_dim) > runtime().limits().local_memory_bytes) continue;
    ++shapes_run;
    const gpu_tests::MaskedProblem data(shape);
    std::vector<float> out(shape.out_elements());
    gpu_tests::expect_close_to_reference(run_mma(runtime(), data.problem(out), GetParam()), data.expected);
    if (gpu::has_tf32_tensor_cores(runtime().limits())) {
      SCOPED_TRACE("native");
      MmaSdpaParameters native = GetParam();
      native.emulate = false;
      gpu_tests::expect_close_to_reference(run_mma(runtime(), data.problem(out), native), data.expected);
    }
  }
  EXPECT_GE(shapes_run, 1u);
}

INSTANTIATE_TEST_SUITE_P(Sweep, MmaKernel, ::testing::ValuesIn(kMmaSweep),
                         [](const ::testing::TestParamInfo<MmaSdpaParameters>& info) {
                           const MmaSdpaParameters& p = info.param;
                           return "w" + std::to_string(p.warps) + "_k" + std::to_string(p.key_tile) + "_s" +
                                  std::to_string(p.query_split) + "_p" + std::to_string(p.prefetch);
                         });

void run_emulated(const attention::AttentionProblem& problem) {
  attention::validate(problem);
  const std::vector<float> out = run_mma(gpu::default_runtime(), problem, {2, 16, true, true, true});
  std::copy(out.begin(), out.end(), problem.out.begin());
}

using MmaSemantics = gpu_tests::OpenClTest;

// NaN and infinities through the split products: hi and lo of an infinity are inf and NaN.
TEST_F(MmaSemantics, NaNPropagatesAndMaskedRowsStayZero) {
  EXPECT_TRUE(attention::test::follows_non_finite_semantics(run_emulated));
}

TEST_F(MmaSemantics, BadParametersAndMissingTensorCoresAreReported) {
  const AttentionShape shape{1, 1, 1, 8, 8, 64, 64};
  EXPECT_THROW(gpu::prepare_mma_sdpa(runtime(), shape, {4, 12, true, false, true}), std::invalid_argument);
  EXPECT_THROW(gpu::prepare_mma_sdpa(runtime(), shape, {9, 16, true, false, true}), std::invalid_argument);
  EXPECT_THROW(gpu::prepare_mma_sdpa(runtime(), {1, 1, 1, 8, 8, 4096, 4096}, {4, 64, true, false, true}),
               std::invalid_argument);
  if (!gpu::has_tf32_tensor_cores(runtime().limits())) {
    try {
      gpu::prepare_mma_sdpa(runtime(), shape, {4, 16});
      ADD_FAILURE() << "prepared without tensor cores";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("no TF32 tensor cores"), std::string::npos) << error.what();
    }
  }
}

}  // namespace
