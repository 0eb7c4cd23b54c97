#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include "attention/implementation_registry.hpp"
#include "attention/uniform_values.hpp"
#include "gpu/device_attention_problem.hpp"
#include "gpu/opencl_kernel.hpp"
#include "gpu/opencl_launch.hpp"

namespace gpu_tests {

// A problem where every feature of a kernel counts: grouped queries, a bottom-right causal limit,
// a mask with -inf and a fully masked row (7); with a shape of sizes no tile divides, what the
// kernels' parameter sweeps run on. `expected` is the reference's output.
struct MaskedProblem {
  attention::AttentionShape shape;
  std::vector<float> q, k, v, mask, expected;

  explicit MaskedProblem(const attention::AttentionShape& problem_shape)
      : shape(problem_shape),
        q(attention::uniform_values(shape.q_elements(), 1)),
        k(attention::uniform_values(shape.k_elements(), 2)),
        v(attention::uniform_values(shape.v_elements(), 3)),
        mask(attention::uniform_values(shape.mask_elements(), 4)),
        expected(shape.out_elements()) {
    constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < mask.size(); i += 5) mask[i] = kMinusInfinity;
    for (std::size_t j = 0; j < shape.seq_k; ++j) mask[7 * shape.seq_k + j] = kMinusInfinity;
    attention::sdpa_reference(problem(expected));
  }

  attention::AttentionProblem problem(std::span<float> out) const {
    return {shape, q, k, v, mask, attention::CausalAlignment::bottom_right, std::nullopt, out};
  }
};

// The output of `prepared` (made for problem.shape) on the problem's inputs; NaN wherever it
// writes nothing. problem.out only sizes the upload.
inline std::vector<float> run_prepared(gpu::OpenClRuntime& runtime, const attention::AttentionProblem& problem,
                                       gpu::PreparedSdpa& prepared) {
  std::vector<float> out(problem.shape.out_elements(), std::numeric_limits<float>::quiet_NaN());
  const gpu::DeviceAttentionProblem device = gpu::upload_problem(runtime, problem);
  gpu::profiled_seconds(prepared.enqueue(device));
  gpu::download_output(runtime, device, out);
  return out;
}

// Every element within atol 1e-4 + rtol 1e-4 of the reference (a NaN counts as a mismatch); the
// first five mismatches are reported.
inline void expect_close_to_reference(std::span<const float> out, std::span<const float> expected) {
  ASSERT_EQ(out.size(), expected.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!(std::abs(out[i] - expected[i]) <= 1e-4f + 1e-4f * std::abs(expected[i])) && ++mismatches <= 5) {
      ADD_FAILURE() << "element " << i << ": " << out[i] << " vs reference " << expected[i];
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << out.size() << " elements";
}

}  // namespace gpu_tests
