#include "flash_sdpa.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <numbers>

#include "aligned_floats.hpp"
#include "attention/implementation_registry.hpp"
#include "workspace_sizes.hpp"

namespace attention {

namespace {

// Each thread of the arena owns one slice of scratch, indexed by its arena slot.
std::size_t thread_slots() { return static_cast<std::size_t>(tbb::this_task_arena::max_concurrency()); }

// Tasks wanted per thread, so that threads finishing at different times still even out.
constexpr std::size_t kTasksPerThread = 4;

// Query tiles a task takes, of the `tiles` of each of `batch_heads` heads: as many as the kernels
// take where that still leaves kTasksPerThread tasks a thread. A task's rows share each block of
// keys it reads, so bigger tasks cost less a row; more tasks keep every thread busy to the end.
std::size_t tiles_per_task(std::size_t max_tiles, std::size_t batch_heads, std::size_t tiles) {
  std::size_t per_task = max_tiles;
  while (per_task > 1 && batch_heads * ((tiles + per_task - 1) / per_task) < kTasksPerThread * thread_slots())
    --per_task;
  return per_task;
}

template <class Kernels>
std::size_t workspace_floats(const Kernels& kernels, const AttentionShape& shape) {
  return thread_slots() * kernels.thread_floats(shape);
}

template <class Element>
simd::ElementFlashCall<Element> element_call_of(const BasicAttentionProblem<Element>& problem) {
  return simd::ElementFlashCall<Element>{
      .shape = problem.shape,
      .q = problem.q.data(),
      .k = problem.k.data(),
      .v = problem.v.data(),
      .mask = problem.mask.empty() ? nullptr : problem.mask.data(),
      .out = problem.out.data(),
      .window = key_window(problem.shape, problem.causal),
      .query_factor = static_cast<float>(problem.effective_scale() * std::numbers::log2e),
  };
}

template <class Kernels, class Element>
void run_flash(const Kernels& kernels, const BasicAttentionProblem<Element>& problem) {
  validate(problem);
  const AttentionShape& s = problem.shape;
  // The whole workspace, allocated once before any kernel runs: one scratch slice per thread slot.
  const AlignedFloats workspace(workspace_floats(kernels, s));
  const std::size_t per_thread = kernels.thread_floats(s);

  const simd::ElementFlashCall<Element> call = element_call_of(problem);

  const std::size_t tiles = (s.seq_q + kernels.query_tile_rows - 1) / kernels.query_tile_rows;
  const std::size_t per_task = tiles_per_task(kernels.max_task_tiles, s.batch * s.heads, tiles);
  const std::size_t head_tasks = (tiles + per_task - 1) / per_task;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, s.batch * s.heads * head_tasks),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      float* const scratch =
                          workspace.data() +
                          static_cast<std::size_t>(tbb::this_task_arena::current_thread_index()) * per_thread;
                      // Within a head, the last query tiles first: under a causal mask they see the
                      // most keys, and starting them early evens out the threads' finishing times.
                      for (std::size_t task = range.begin(); task != range.end(); ++task) {
                        const std::size_t first = (head_tasks - 1 - task % head_tasks) * per_task;
                        kernels.attend(call, task / head_tasks, first, std::min(per_task, tiles - first), scratch);
                      }
                    });
}

}  // namespace

simd::FlashCall flash_call_of(const AttentionProblem& problem) { return element_call_of(problem); }
simd::Bf16FlashCall flash_call_of(const Bf16AttentionProblem& problem) { return element_call_of(problem); }

std::size_t flash_workspace_bytes_with(const simd::FlashKernels& kernels, const AttentionShape& shape) {
  return workspace_floats(kernels, shape) * sizeof(float);
}

std::size_t flash_workspace_bytes_with(const simd::Bf16FlashKernels& kernels, const AttentionShape& shape) {
  return workspace_floats(kernels, shape) * sizeof(float);
}

std::size_t flash_workspace_bytes(const AttentionShape& shape) {
  return flash_workspace_bytes_with(*simd::best_flash_isa().kernels, shape);
}

std::size_t flash_bf16_workspace_bytes(const AttentionShape& shape) {
  return flash_workspace_bytes_with(*simd::best_bf16_flash_isa().kernels, shape);
}

void sdpa_flash_with(const simd::FlashKernels& kernels, const AttentionProblem& problem) {
  run_flash(kernels, problem);
}

void sdpa_flash_with(const simd::Bf16FlashKernels& kernels, const Bf16AttentionProblem& problem) {
  run_flash(kernels, problem);
}

void sdpa_flash(const AttentionProblem& problem) { sdpa_flash_with(*simd::best_flash_isa().kernels, problem); }

void sdpa_flash_bf16(const Bf16AttentionProblem& problem) {
  sdpa_flash_with(*simd::best_bf16_flash_isa().kernels, problem);
}

}  // namespace attention
