// workspace_bytes(shape) is exactly what a call allocates: this program's operator new
// (tracking_allocator.hpp) counts the bytes requested while a call runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attention/implementation_registry.hpp"
#include "flash_sdpa.hpp"
#include "simd/flash_kernels.hpp"
#include "tracking_allocator.hpp"

namespace attention {
namespace {

struct Buffers {
  std::vector<float> q, k, v, out;
  explicit Buffers(const AttentionShape& s)
      : q(s.q_elements(), 0.5f), k(s.k_elements(), 0.25f), v(s.v_elements(), 1.0f), out(s.out_elements()) {}
  AttentionProblem problem(const AttentionShape& s) { return {s, q, k, v, {}, CausalAlignment::top_left, {}, out}; }
};

// Bytes operator new handed out during the second of two identical calls (the first may set up
// thread pools and other one-time state).
std::size_t bytes_allocated_by(void (*run)(const AttentionProblem&), const AttentionShape& shape) {
  Buffers buffers(shape);
  const AttentionProblem problem = buffers.problem(shape);
  run(problem);
  test::start_counting();
  run(problem);
  return test::bytes_counted();
}

const AttentionShape kShapes[] = {
    {1, 1, 1, 1, 1, 64, 64},
    {2, 4, 2, 100, 300, 80, 80},
    {1, 8, 1, 513, 129, 128, 32},
    {1, 2, 2, 37, 41, 5, 13},  // value_dim no multiple of any vector width: V is packed
};

TEST(WorkspaceBytes, IsWhatEachImplementationAllocates) {
  for (const Implementation& implementation : cpu_implementations()) {
    for (const AttentionShape& shape : kShapes) {
      EXPECT_EQ(bytes_allocated_by(implementation.run, shape), implementation.workspace_bytes(shape))
          << implementation.name << " with seq_q " << shape.seq_q << ", value_dim " << shape.value_dim;
    }
  }
}

// As bytes_allocated_by, for a bfloat16 implementation.
std::size_t bf16_bytes_allocated_by(void (*run)(const Bf16AttentionProblem&), const AttentionShape& shape) {
  std::vector<bfloat16> q(shape.q_elements(), to_bfloat16(0.5f)), k(shape.k_elements(), to_bfloat16(0.25f)),
      v(shape.v_elements(), to_bfloat16(1.0f)), out(shape.out_elements());
  const Bf16AttentionProblem problem{shape, q, k, v, {}, CausalAlignment::top_left, {}, out};
  run(problem);
  test::start_counting();
  run(problem);
  return test::bytes_counted();
}

TEST(WorkspaceBytes, IsWhatEachBf16ImplementationAllocates) {
  for (const Bf16Implementation& implementation : cpu_bf16_implementations()) {
    for (const AttentionShape& shape : kShapes) {
      EXPECT_EQ(bf16_bytes_allocated_by(implementation.run, shape), implementation.workspace_bytes(shape))
          << implementation.name << " with seq_q " << shape.seq_q << ", value_dim " << shape.value_dim;
    }
  }
}

const simd::FlashKernels* g_kernels = nullptr;
void run_with_current_kernels(const AttentionProblem& problem) { sdpa_flash_with(*g_kernels, problem); }

TEST(WorkspaceBytes, IsWhatEachFlashIsaAllocates) {
  for (const simd::FlashIsa& entry : simd::all_flash_isas()) {
    if (!isa::cpu_supports(entry.isa)) continue;
    g_kernels = entry.kernels;
    for (const AttentionShape& shape : kShapes)
      EXPECT_EQ(bytes_allocated_by(run_with_current_kernels, shape), flash_workspace_bytes_with(*entry.kernels, shape))
          << isa::name(entry.isa) << " with seq_q " << shape.seq_q << ", value_dim " << shape.value_dim;
  }
}

TEST(WorkspaceBytes, ReferenceHoldsOneRowOfScoresAndOneOutputRowInDouble) {
  const AttentionShape shape{2, 4, 2, 100, 300, 80, 48};
  EXPECT_EQ(find_cpu_implementation("reference")->workspace_bytes(shape), (300 + 48) * sizeof(double));
}

}  // namespace
}  // namespace attention
