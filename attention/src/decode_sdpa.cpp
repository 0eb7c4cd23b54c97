#include "decode_sdpa.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <cmath>
#include <type_traits>

#include "aligned_floats.hpp"
#include "attention/implementation_registry.hpp"
#include "attention/visible_keys.hpp"
#include "flash_sdpa.hpp"
#include "workspace_sizes.hpp"

namespace attention {

namespace {

constexpr std::size_t round_up(std::size_t n, std::size_t multiple) { return (n + multiple - 1) / multiple * multiple; }
constexpr std::size_t divide_up(std::size_t n, std::size_t d) { return (n + d - 1) / d; }

// Splits are made only while each keeps at least this many keys: a task's fixed work (its query
// rows, its partial result, the combine) stays small beside streaming its keys and values.
constexpr std::size_t kMinSplitKeys = 256;
// Tasks wanted per thread, so that threads finishing at different times still even out.
constexpr std::size_t kTasksPerThread = 4;
// Split boundaries fall on multiples of this many keys, a whole number of the kernels' key blocks.
constexpr std::size_t kSplitAlign = 64;

// How a call is cut into tasks; from the shape and the thread count alone, so that the workspace
// is known before the call (Implementation::workspace_bytes).
struct DecodePlan {
  std::size_t group_rows;      // query rows per key/value head: heads / kv_heads x seq_q
  std::size_t row_blocks;      // tasks a group's rows are cut into, each of at most decode_task_rows
  std::size_t block_rows;      // rows of each (the last may have fewer)
  std::size_t splits;          // key ranges per (group, row block)
  std::size_t split_keys;      // keys of each (the last may have fewer)
  std::size_t value_stride;    // floats between a partial result's output rows
  std::size_t partial_floats;  // floats of one task's partial result: maxima, sums, output rows
  std::size_t tasks;
  std::size_t thread_floats;
  std::size_t threads;
};

template <class Kernels>
DecodePlan plan_of(const Kernels& kernels, const AttentionShape& s) {
  DecodePlan p{};
  p.threads = static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
  p.group_rows = s.heads / s.kv_heads * s.seq_q;
  p.row_blocks = divide_up(p.group_rows, kernels.decode_task_rows);
  p.block_rows = divide_up(p.group_rows, p.row_blocks);
  const std::size_t unsplit_tasks = s.batch * s.kv_heads * p.row_blocks;
  const std::size_t wanted = divide_up(kTasksPerThread * p.threads, unsplit_tasks);
  const std::size_t most = divide_up(s.seq_k, kMinSplitKeys);
  const std::size_t splits = wanted < most ? wanted : most;
  p.split_keys = round_up(divide_up(s.seq_k, splits), kSplitAlign);
  p.splits = divide_up(s.seq_k, p.split_keys);
  p.value_stride = round_up(s.value_dim, 16);
  p.partial_floats = 2 * round_up(p.block_rows, 16) + p.block_rows * p.value_stride;
  p.tasks = unsplit_tasks * p.splits;
  p.thread_floats = kernels.decode_thread_floats(s);
  return p;
}

std::size_t workspace_floats(const DecodePlan& p) { return p.threads * p.thread_floats + p.tasks * p.partial_floats; }

}  // namespace

std::size_t decode_workspace_bytes_with(const simd::FlashKernels& kernels, const AttentionShape& shape) {
  return workspace_floats(plan_of(kernels, shape)) * sizeof(float);
}

std::size_t decode_workspace_bytes_with(const simd::Bf16FlashKernels& kernels, const AttentionShape& shape) {
  return workspace_floats(plan_of(kernels, shape)) * sizeof(float);
}

std::size_t decode_workspace_bytes(const AttentionShape& shape) {
  return decode_workspace_bytes_with(*simd::best_flash_isa().kernels, shape);
}

std::size_t decode_bf16_workspace_bytes(const AttentionShape& shape) {
  return decode_workspace_bytes_with(*simd::best_bf16_flash_isa().kernels, shape);
}

namespace {

template <class Kernels, class Element>
void run_decode(const Kernels& kernels, const BasicAttentionProblem<Element>& problem) {
  validate(problem);
  const AttentionShape& s = problem.shape;
  const DecodePlan p = plan_of(kernels, s);
  // The whole workspace, allocated once: the threads' scratch, then every task's partial result
  // (64-byte aligned: thread_floats and partial_floats are multiples of 16).
  const AlignedFloats workspace(workspace_floats(p));
  float* const partials = workspace.data() + p.threads * p.thread_floats;

  const simd::ElementFlashCall<Element> call = flash_call_of(problem);
  // Visible key counts grow with the query: no row sees a key past the last query's limit.
  const std::size_t keys_end = visible_keys(call.window, s.seq_q - 1);

  // Task t: split t % splits of row block (t / splits) % row_blocks of group t / splits / row_blocks.
  const auto task_of = [&](std::size_t t) {
    const std::size_t split = t % p.splits;
    const std::size_t block = t / p.splits % p.row_blocks;
    const std::size_t first_row = block * p.block_rows;
    const std::size_t rows = first_row + p.block_rows <= p.group_rows ? p.block_rows : p.group_rows - first_row;
    const std::size_t begin = split * p.split_keys;
    const std::size_t end = begin + p.split_keys < keys_end ? begin + p.split_keys : keys_end;
    float* const partial = partials + t * p.partial_floats;
    const std::size_t stats = round_up(p.block_rows, 16);
    return simd::DecodeTask{.group = t / p.splits / p.row_blocks,
                            .first_row = first_row,
                            .rows = rows,
                            .key_begin = begin,
                            .key_end = begin < end ? end : begin,
                            .row_max = partial,
                            .row_sum = partial + stats,
                            .outputs = partial + 2 * stats,
                            .value_stride = p.value_stride};
  };
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, p.tasks), [&](const tbb::blocked_range<std::size_t>& range) {
    float* const scratch =
        workspace.data() + static_cast<std::size_t>(tbb::this_task_arena::current_thread_index()) * p.thread_floats;
    for (std::size_t t = range.begin(); t != range.end(); ++t) kernels.decode(call, task_of(t), scratch);
  });

  // Each row's splits combined: with M the largest of their maxima, the row is
  // sum(outputs_i * exp2(max_i - M)) / sum(sum_i * exp2(max_i - M)), exactly the softmax over all
  // its keys. (The AMX kernels keep a base at most 8 below the max instead, their sums and outputs
  // relative to it: the same formula holds for any base.) A row that saw no key has sum 0 and is zeros; a NaN in any split's sum or output
  // (from a NaN or +inf score) makes the row NaN.
  const std::size_t group_heads = s.heads / s.kv_heads;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, s.batch * s.kv_heads * p.group_rows),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t row = range.begin(); row != range.end(); ++row) {
                        const std::size_t group = row / p.group_rows;
                        const std::size_t r = row % p.group_rows;
                        const std::size_t first_task = (group * p.row_blocks + r / p.block_rows) * p.splits;
                        const std::size_t rr = r % p.block_rows;
                        const auto max_of = [&](std::size_t split) {
                          return task_of(first_task + split).row_max[rr];
                        };
                        float largest = -INFINITY;
                        for (std::size_t split = 0; split < p.splits; ++split)
                          if (max_of(split) > largest) largest = max_of(split);
                        const float base = largest == -INFINITY ? 0.0f : largest;
                        float sum = 0.0f;
                        for (std::size_t split = 0; split < p.splits; ++split)
                          sum += task_of(first_task + split).row_sum[rr] * std::exp2(max_of(split) - base);
                        const std::size_t head = group / s.kv_heads * s.heads + group % s.kv_heads * group_heads +
                                                 r / s.seq_q;
                        Element* const out = call.out + (head * s.seq_q + r % s.seq_q) * s.value_dim;
                        // The sums in float: in the output row itself, or beside a bfloat16 one,
                        // which is rounded once at the end.
                        float bf16_sums[std::is_same_v<Element, float> ? 1 : kMaxHeadDim];
                        float* const sums = [&] {
                          if constexpr (std::is_same_v<Element, float>)
                            return out;
                          else
                            return bf16_sums;
                        }();
                        for (std::size_t c = 0; c < s.value_dim; ++c) sums[c] = 0.0f;
                        for (std::size_t split = 0; split < p.splits && sum != 0.0f; ++split) {
                          const simd::DecodeTask task = task_of(first_task + split);
                          const float factor = std::exp2(max_of(split) - base) / sum;
                          const float* const outputs = task.outputs + rr * p.value_stride;
                          for (std::size_t c = 0; c < s.value_dim; ++c) sums[c] += outputs[c] * factor;
                        }
                        if constexpr (!std::is_same_v<Element, float>)
                          for (std::size_t c = 0; c < s.value_dim; ++c) out[c] = to_bfloat16(sums[c]);
                      }
                    });
}

}  // namespace

void sdpa_decode_with(const simd::FlashKernels& kernels, const AttentionProblem& problem) {
  run_decode(kernels, problem);
}

void sdpa_decode_with(const simd::Bf16FlashKernels& kernels, const Bf16AttentionProblem& problem) {
  run_decode(kernels, problem);
}

void sdpa_decode(const AttentionProblem& problem) { sdpa_decode_with(*simd::best_flash_isa().kernels, problem); }

void sdpa_decode_bf16(const Bf16AttentionProblem& problem) {
  sdpa_decode_with(*simd::best_bf16_flash_isa().kernels, problem);
}

}  // namespace attention
