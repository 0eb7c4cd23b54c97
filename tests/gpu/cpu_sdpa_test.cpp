// opencl_cpu's parameters: their rules, and every candidate against the reference (the agreement
// grid runs the device's chosen ones only).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/cpu_sdpa.hpp"
#include "masked_problem.hpp"
#include "opencl_test_fixture.hpp"

namespace {

using attention::AttentionShape;
using gpu::CpuSdpaParameters;

TEST(CpuParameters, EveryRowCountFromOneToEightTheDefaultFirst) {
  const std::vector<CpuSdpaParameters> candidates = gpu::cpu_parameter_candidates();
  ASSERT_EQ(candidates.size(), 8u);
  EXPECT_EQ(candidates.front(), CpuSdpaParameters{});
  EXPECT_EQ(candidates.front().query_rows, 4u);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    EXPECT_EQ(gpu::cpu_parameters_problem(candidates[i]), "") << candidates[i].to_string();
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(candidates[i], candidates[j]);
  }
  EXPECT_EQ(CpuSdpaParameters{6}.to_string(), "query_rows=6");
  EXPECT_NE(gpu::cpu_parameters_problem({0}).find("1 to 8"), std::string::npos);
  EXPECT_NE(gpu::cpu_parameters_problem({9}).find("1 to 8"), std::string::npos);
}

class CpuKernelRows : public gpu_tests::OpenClTest, public ::testing::WithParamInterface<std::size_t> {};

// Rows that divide no query count (the last block repeats its last query) and a dimension no
// vector divides.
TEST_P(CpuKernelRows, MatchTheReference) {
  const CpuSdpaParameters parameters{GetParam()};
  for (const AttentionShape& shape : {AttentionShape{1, 4, 2, 100, 300, 80, 20}, AttentionShape{2, 2, 1, 33, 17, 64, 64}}) {
    SCOPED_TRACE(std::to_string(shape.head_dim) + "x" + std::to_string(shape.value_dim));
    const gpu_tests::MaskedProblem data(shape);
    std::vector<float> out(shape.out_elements());
    const auto prepared = gpu::prepare_cpu_sdpa(runtime(), shape, parameters);
    gpu_tests::expect_close_to_reference(gpu_tests::run_prepared(runtime(), data.problem(out), *prepared), data.expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Sweep, CpuKernelRows, ::testing::Values(1, 3, 4, 8),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return "rows" + std::to_string(info.param);
                         });

using CpuKernel = gpu_tests::OpenClTest;

TEST_F(CpuKernel, BadParametersAreInvalidArguments) {
  EXPECT_THROW(gpu::prepare_cpu_sdpa(runtime(), {1, 1, 1, 8, 8, 64, 64}, {9}), std::invalid_argument);
}

}  // namespace
