// Every OpenCL implementation against attention::sdpa_reference (double precision, CPU) on a grid
// of shapes, masks and causal alignments, within atol 1e-4 + rtol 1e-4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/implementation_registry.hpp"
#include "attention/uniform_values.hpp"
#include "gpu/mma_sdpa.hpp"
#include "gpu/opencl_implementations.hpp"
#include "gpu/opencl_runtime.hpp"
#include "non_finite_semantics.hpp"
#include "opencl_test_fixture.hpp"

namespace {

using attention::AttentionShape;
using attention::uniform_values;
using attention::CausalAlignment;

constexpr float kAbsoluteTolerance = 1e-4f;
constexpr float kRelativeTolerance = 1e-4f;
constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

enum class MaskKind {
  none,
  // Finite values in [-3, 3] with about one key in eight at -inf.
  random,
  // `random`, with every third query row entirely -inf.
  masked_rows,
};

struct AgreementCase {
  AttentionShape shape;
  CausalAlignment causal = CausalAlignment::none;
  MaskKind mask = MaskKind::none;
  // When set, the scale is chosen so that the largest |logit| is this (before the mask).
  float max_logit = 0.0f;

  std::string name() const {
    static constexpr const char* kMaskNames[] = {"nomask", "mask", "maskedrows"};
    std::string causal_name(attention::to_string(causal));
    std::replace(causal_name.begin(), causal_name.end(), '-', '_');
    return "b" + std::to_string(shape.batch) + "_h" + std::to_string(shape.heads) + "kv" +
           std::to_string(shape.kv_heads) + "_q" + std::to_string(shape.seq_q) + "_k" + std::to_string(shape.seq_k) +
           "_d" + std::to_string(shape.head_dim) + "v" + std::to_string(shape.value_dim) + "_" + causal_name + "_" +
           kMaskNames[static_cast<int>(mask)] + (max_logit > 0 ? "_logits" + std::to_string(int(max_logit)) : "");
  }
};

// For gtest's messages.
void PrintTo(const AgreementCase& test_case, std::ostream* out) { *out << test_case.name(); }

AttentionShape make_shape(std::size_t batch, std::size_t group, std::size_t seq_q, std::size_t seq_k,
                          std::size_t head_dim, std::size_t value_dim) {
  // Group 1 and 2 over two key/value heads, group 8 over one.
  const std::size_t kv_heads = group == 8 ? 1 : 2;
  return AttentionShape{batch, kv_heads * group, kv_heads, seq_q, seq_k, head_dim, value_dim};
}

std::vector<AgreementCase> agreement_cases() {
  std::vector<AgreementCase> cases;
  // Sizes: single rows, sizes below and between the kernels' tiles (8, 16, 32, 64), and long keys.
  const std::pair<std::size_t, std::size_t> sizes[] = {{1, 1},    {7, 7},     {64, 64},   {127, 127}, {1, 1000},
                                                       {7, 512},  {127, 64},  {512, 1000}, {1000, 1000}};
  const CausalAlignment alignments[] = {CausalAlignment::none, CausalAlignment::top_left,
                                        CausalAlignment::bottom_right};
  const std::size_t groups[] = {1, 2, 8};
  std::size_t rotation = 0;
  for (const std::size_t head_dim : {32, 64, 80, 128}) {
    for (const auto& [seq_q, seq_k] : sizes) {
      const bool large = seq_q * seq_k > 100'000;
      // Large cases keep the reference affordable: one batch, at most two heads.
      const std::size_t group = large ? 1 + rotation % 2 : groups[rotation % 3];
      cases.push_back({make_shape(large ? 1 : 2, group, seq_q, seq_k, head_dim, head_dim), alignments[rotation % 3],
                       rotation % 2 == 0 ? MaskKind::none : MaskKind::random});
      ++rotation;
    }
  }
  // Every mask and alignment with every group size, with more queries than keys and fewer.
  for (const auto& [seq_q, seq_k] : {std::pair<std::size_t, std::size_t>{127, 200}, {200, 127}}) {
    for (const CausalAlignment causal : alignments) {
      for (const MaskKind mask : {MaskKind::none, MaskKind::random, MaskKind::masked_rows}) {
        for (const std::size_t group : groups) {
          cases.push_back({make_shape(1, group, seq_q, seq_k, 64, 64), causal, mask});
        }
      }
    }
  }
  // Logits up to +-80: exp overflows float without the max subtraction.
  for (const std::size_t head_dim : {32, 64, 80, 128}) {
    cases.push_back({make_shape(1, 2, 127, 300, head_dim, head_dim), CausalAlignment::none, MaskKind::none, 80.0f});
    cases.push_back(
        {make_shape(1, 8, 64, 97, head_dim, head_dim), CausalAlignment::bottom_right, MaskKind::random, 80.0f});
  }
  // Value dimensions other than the head dimension, up to 256, and sizes no vector width divides.
  const std::pair<std::size_t, std::size_t> dims[] = {{64, 32}, {32, 128}, {256, 256}, {256, 64},
                                                      {3, 5},   {80, 20},  {128, 256}};
  for (const auto& [head_dim, value_dim] : dims) {
    cases.push_back({make_shape(1, 2, 127, 300, head_dim, value_dim), CausalAlignment::top_left, MaskKind::random});
  }
  return cases;
}

std::vector<float> make_mask(const AgreementCase& test_case) {
  if (test_case.mask == MaskKind::none) return {};
  const AttentionShape& shape = test_case.shape;
  std::vector<float> mask = uniform_values(shape.mask_elements(), 99);
  std::mt19937 generator(7);
  for (float& value : mask) value = generator() % 8 == 0 ? kMinusInfinity : 3.0f * value;
  if (test_case.mask == MaskKind::masked_rows) {
    for (std::size_t i = 0; i < shape.seq_q; i += 3) {
      std::fill_n(mask.begin() + static_cast<std::ptrdiff_t>(i * shape.seq_k), shape.seq_k, kMinusInfinity);
    }
  }
  return mask;
}

// The scale that makes the largest |q . k| of the problem's head pairs equal max_logit.
float scale_for_max_logit(const attention::AttentionProblem& problem, float max_logit) {
  const AttentionShape& s = problem.shape;
  double largest = 0;
  for (std::size_t bh = 0; bh < s.batch * s.heads; ++bh) {
    const std::size_t kv = bh / (s.heads / s.kv_heads);
    for (std::size_t i = 0; i < s.seq_q; ++i) {
      for (std::size_t j = 0; j < s.seq_k; ++j) {
        double dot = 0;
        for (std::size_t d = 0; d < s.head_dim; ++d) {
          dot += double(problem.q[(bh * s.seq_q + i) * s.head_dim + d]) *
                 problem.k[(kv * s.seq_k + j) * s.head_dim + d];
        }
        largest = std::max(largest, std::abs(dot));
      }
    }
  }
  return static_cast<float>(max_logit / largest);
}

// Inputs of one case and the reference output.
struct CaseData {
  std::vector<float> q, k, v, mask, expected;
  std::optional<float> scale;

  explicit CaseData(const AgreementCase& test_case)
      : q(uniform_values(test_case.shape.q_elements(), 1)),
        k(uniform_values(test_case.shape.k_elements(), 2)),
        v(uniform_values(test_case.shape.v_elements(), 3)),
        mask(make_mask(test_case)),
        expected(test_case.shape.out_elements()) {
    if (test_case.max_logit > 0) scale = scale_for_max_logit(problem(test_case, expected), test_case.max_logit);
    attention::sdpa_reference(problem(test_case, expected));
  }

  attention::AttentionProblem problem(const AgreementCase& test_case, std::span<float> out) const {
    return attention::AttentionProblem{test_case.shape, q, k, v, mask, test_case.causal, scale, out};
  }
};

void expect_close(std::span<const float> actual, std::span<const float> expected) {
  ASSERT_EQ(actual.size(), expected.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const float allowed = kAbsoluteTolerance + kRelativeTolerance * std::abs(expected[i]);
    // Written so that a NaN counts as a mismatch.
    if (!(std::abs(actual[i] - expected[i]) <= allowed)) {
      if (++mismatches <= 5) ADD_FAILURE() << "element " << i << ": " << actual[i] << " vs reference " << expected[i];
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << actual.size() << " elements";
}

class OpenClAgreement : public gpu_tests::OpenClTest, public ::testing::WithParamInterface<AgreementCase> {};

TEST_P(OpenClAgreement, EveryKernelMatchesTheReference) {
  const AgreementCase& test_case = GetParam();
  const CaseData data(test_case);
  for (const attention::Implementation& implementation : gpu::opencl_implementations()) {
    if (!implementation.is_supported()) continue;
    SCOPED_TRACE(implementation.name);
    std::vector<float> out(test_case.shape.out_elements(), std::numeric_limits<float>::quiet_NaN());
    implementation.run(data.problem(test_case, out));
    expect_close(out, data.expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Grid, OpenClAgreement, ::testing::ValuesIn(agreement_cases()),
                         [](const ::testing::TestParamInfo<AgreementCase>& info) { return info.param.name(); });

using OpenClSemantics = gpu_tests::OpenClTest;

// Rows whose keys are all masked, by the mask or by a bottom-right causal limit with more queries
// than keys, are exactly zero in every kernel, never NaN.
TEST_F(OpenClSemantics, RowsWithoutAVisibleKeyAreExactlyZero) {
  const AgreementCase test_case{make_shape(1, 2, 40, 25, 64, 64), CausalAlignment::bottom_right, MaskKind::masked_rows};
  const CaseData data(test_case);
  const AttentionShape& s = test_case.shape;
  for (const attention::Implementation& implementation : gpu::opencl_implementations()) {
    if (!implementation.is_supported()) continue;
    SCOPED_TRACE(implementation.name);
    std::vector<float> out(s.out_elements(), std::numeric_limits<float>::quiet_NaN());
    implementation.run(data.problem(test_case, out));
    for (std::size_t bh = 0; bh < s.batch * s.heads; ++bh) {
      for (std::size_t i = 0; i < s.seq_q; ++i) {
        // Bottom-right: query i sees keys up to i + seq_k - seq_q, none while that is negative.
        const bool no_key = i % 3 == 0 || i + s.seq_k < s.seq_q;
        if (!no_key) continue;
        for (std::size_t c = 0; c < s.value_dim; ++c) {
          ASSERT_EQ(out[(bh * s.seq_q + i) * s.value_dim + c], 0.0f) << "head " << bh << " query " << i;
        }
      }
    }
  }
}

// NaN and infinities as PyTorch treats them, and as the CPU implementations do.
TEST_F(OpenClSemantics, NaNPropagatesAndMaskedRowsStayZero) {
  for (const attention::Implementation& implementation : gpu::opencl_implementations()) {
    if (!implementation.is_supported()) continue;
    SCOPED_TRACE(implementation.name);
    EXPECT_TRUE(attention::test::follows_non_finite_semantics(implementation.run));
  }
}

TEST_F(OpenClSemantics, RepeatedRunsGiveIdenticalOutputs) {
  const AgreementCase test_case{make_shape(2, 2, 130, 70, 32, 32), CausalAlignment::top_left, MaskKind::random};
  const CaseData data(test_case);
  for (const attention::Implementation& implementation : gpu::opencl_implementations()) {
    if (!implementation.is_supported()) continue;
    SCOPED_TRACE(implementation.name);
    std::vector<float> first(test_case.shape.out_elements());
    std::vector<float> second(test_case.shape.out_elements());
    implementation.run(data.problem(test_case, first));
    implementation.run(data.problem(test_case, second));
    EXPECT_EQ(first, second);
  }
}

TEST_F(OpenClSemantics, ThePreferredKernelDependsOnTheDeviceType) {
  const bool cpu_device = (runtime().device().type & CL_DEVICE_TYPE_CPU) != 0;
  const std::string_view gpu_kernel = gpu::has_tf32_tensor_cores(runtime().limits()) ? "opencl_mma" : "opencl_tiled";
  EXPECT_EQ(gpu::preferred_opencl_implementation().name, cpu_device ? "opencl_cpu" : gpu_kernel);
}

TEST(OpenClRegistry, ListsTheFiveKernelsWithTheirWorkspaces) {
  const std::span<const attention::Implementation> all = gpu::opencl_implementations();
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].name, "opencl_naive");
  EXPECT_EQ(all[1].name, "opencl_flash");
  EXPECT_EQ(all[2].name, "opencl_tiled");
  EXPECT_EQ(all[3].name, "opencl_cpu");
  EXPECT_EQ(all[4].name, "opencl_mma");
  const AttentionShape shape{2, 8, 2, 100, 30, 64, 32};
  EXPECT_EQ(all[0].workspace_bytes(shape), 2u * 8 * 100 * 30 * sizeof(float)) << "the scores";
  EXPECT_EQ(all[1].workspace_bytes(shape), 0u);
  EXPECT_EQ(all[2].workspace_bytes(shape), 0u);
  EXPECT_EQ(all[3].workspace_bytes(shape), 2u * 2 * 64 * 32 * sizeof(float))
      << "K packed, keys padded to a multiple of 16";
  EXPECT_EQ(all[4].workspace_bytes(shape), 0u);
  for (const attention::Implementation& implementation : all.first(4)) {
    EXPECT_EQ(implementation.is_supported(), gpu::opencl_device_available()) << implementation.name;
  }
  const bool tensor_cores = gpu::opencl_device_available() && gpu::has_tf32_tensor_cores(gpu::default_runtime().limits());
  EXPECT_EQ(all[4].is_supported(), tensor_cores);
}

// Invalid problems are rejected before any OpenCL work, so this holds on machines without a device.
TEST(OpenClRegistry, InvalidProblemsAreInvalidArguments) {
  const AttentionShape shape{1, 3, 2, 4, 4, 8, 8};  // 3 heads over 2 key/value heads
  const std::vector<float> q(shape.q_elements()), k(shape.k_elements()), v(shape.v_elements());
  std::vector<float> out(shape.out_elements());
  const attention::AttentionProblem problem{shape, q, k, v, {}, CausalAlignment::none, std::nullopt, out};
  for (const attention::Implementation& implementation : gpu::opencl_implementations()) {
    EXPECT_THROW(implementation.run(problem), std::invalid_argument) << implementation.name;
  }
  const AttentionShape too_wide{1, 1, 1, 4, 4, 257, 8};
  const std::vector<float> wide_q(too_wide.q_elements()), wide_k(too_wide.k_elements());
  const attention::AttentionProblem wide{too_wide, wide_q, wide_k, v, {}, CausalAlignment::none, std::nullopt, out};
  for (const attention::Implementation& implementation : gpu::opencl_implementations()) {
    EXPECT_THROW(implementation.run(wide), std::invalid_argument) << implementation.name;
  }
}

}  // namespace
