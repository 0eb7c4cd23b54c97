// calibration/fma_peak: the machine's float32 FMA peak (fma_peak.hpp), the yardstick of the
// sdpa family's peak_fraction. GFLOPS counts two flops per FMA lane. calibration/bf16_peak: the
// bfloat16 one, the yardstick of the bfloat16 implementations.
#include "fma_peak.hpp"

#include <benchmark/benchmark.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "benches.hpp"
#include "guarded_benchmark.hpp"
#include "isa/isa.hpp"
#include "simd/flash_kernels.hpp"

namespace benches {

namespace {

// A calibration kernel: the product probe of the attention library's bfloat16 kernels of one ISA
// (attention/src/simd/product_rounds.inl), chains of vdpbf16ps at the avx512bf16 level and of FMAs
// at the others, where the float kernels of the same level take their products the same way.
struct FmaKernel {
  const attention::simd::Bf16FlashIsa* entry;

  isa::Isa isa() const { return entry->isa; }
  // Flops of one round: a multiply and an add a product.
  std::uint64_t flops_per_round() const { return 2 * entry->kernels->products_per_round(); }
  // Runs `rounds` rounds from `seed` (of order one) and returns a sum of every chain, so that no
  // round can be elided.
  float run_rounds(std::uint64_t rounds, float seed) const { return entry->kernels->run_product_rounds(rounds, seed); }
};

// The float peak: the probe at the level of the float kernels the library runs.
const FmaKernel& best_kernel() {
  static const FmaKernel best{&attention::simd::bf16_flash_isa(attention::simd::best_flash_isa().isa)};
  return best;
}

// The bfloat16 peak: the probe of the bfloat16 kernels the library runs, vdpbf16ps only where it
// chose them (attention::simd::best_bf16_flash_isa), else the float kernel of that level.
const FmaKernel& best_bf16_kernel() {
  static const FmaKernel best{&attention::simd::best_bf16_flash_isa()};
  return best;
}

int arena_threads() { return tbb::this_task_arena::max_concurrency(); }

// Work cut into chunks that TBB's threads take one at a time: with many chunks per thread, a
// thread that the OS pauses for a while delays its own chunks, not the end of the run.
struct Workload {
  // About 0.1 ms of one core at 2 FMAs a cycle.
  std::uint64_t rounds_per_chunk = std::uint64_t{1} << 16;
  std::size_t chunks = 32 * static_cast<std::size_t>(arena_threads());

  double flops(const FmaKernel& kernel) const {
    return static_cast<double>(kernel.flops_per_round() * rounds_per_chunk * chunks);
  }
};

// Runs `work` on TBB's default arena (the calibration benchmark times it).
void run_on_arena(const FmaKernel& kernel, const Workload& work) {
  tbb::parallel_for(std::size_t{0}, work.chunks, [&](std::size_t chunk) {
    benchmark::DoNotOptimize(kernel.run_rounds(work.rounds_per_chunk, 1.0f + static_cast<float>(chunk % 8)));
  });
}

// One core's best rate times the arena's threads. A run on one thread does not depend on the OS
// running the other threads at the same moment, which a run on all of them does: at start-up on
// a shared VM such runs read far below the calibration benchmark (docs/performance-notes.md).
double measure_peak_gflops(const FmaKernel& kernel) {
  constexpr double kRunSeconds = 0.02;
  constexpr int kRuns = 15;
  const auto seconds_of = [&](std::uint64_t rounds) {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(kernel.run_rounds(rounds, 1.0f));
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // The first run also wakes the core up; its time only sizes the runs.
  const std::uint64_t probe = Workload{}.rounds_per_chunk;
  const auto rounds = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(static_cast<double>(probe) * kRunSeconds / seconds_of(probe)));
  double best = 0;
  for (int run = 0; run < kRuns; ++run) best = std::max(best, static_cast<double>(rounds) / seconds_of(rounds));
  return best * static_cast<double>(kernel.flops_per_round()) * arena_threads() * 1e-9;
}

void fma_peak_benchmark(benchmark::State& state, const FmaKernel* chosen) {
  const FmaKernel& kernel = *chosen;
  const Workload work;
  for (auto _ : state) run_on_arena(kernel, work);
  state.counters["GFLOPS"] =
      benchmark::Counter(work.flops(kernel) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(isa::name(kernel.isa())) + ", " + std::to_string(arena_threads()) + " threads");
}

}  // namespace

double fma_peak_gflops() {
  static const double peak = measure_peak_gflops(best_kernel());
  return peak;
}

std::string_view fma_peak_isa() { return isa::name(best_kernel().isa()); }

double bf16_peak_gflops() {
  static const double peak = best_bf16_kernel().entry == best_kernel().entry ? fma_peak_gflops()
                                                                    : measure_peak_gflops(best_bf16_kernel());
  return peak;
}

std::string_view bf16_peak_isa() { return isa::name(best_bf16_kernel().isa()); }

void register_calibration_benchmarks() {
  register_guarded("calibration/fma_peak", fma_peak_benchmark, &best_kernel())->UseRealTime();
  register_guarded("calibration/bf16_peak", fma_peak_benchmark, &best_bf16_kernel())->UseRealTime();
}

void add_fma_peak_context() {
  char gflops[32];
  std::snprintf(gflops, sizeof gflops, "%.1f", fma_peak_gflops());
  benchmark::AddCustomContext("fma_peak_gflops", gflops);
  benchmark::AddCustomContext("fma_peak_isa", std::string(fma_peak_isa()));
  benchmark::AddCustomContext("fma_peak_threads", std::to_string(arena_threads()));
  std::snprintf(gflops, sizeof gflops, "%.1f", bf16_peak_gflops());
  benchmark::AddCustomContext("bf16_peak_gflops", gflops);
  benchmark::AddCustomContext("bf16_peak_isa", std::string(bf16_peak_isa()));
}

}  // namespace benches
