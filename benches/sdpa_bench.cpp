// sdpa/<implementation>/batch:4/heads:8/seq_q:S/seq_k:S/dim:D/causal:C: forward SDPA on the CPU,
// one benchmark per supported implementation of attention::cpu_implementations() and shape of
// sdpa_bench_inputs.hpp: S in {128, 512, 1024, 4096} (`reference` up to 1024), D in {64, 128},
// causal 0 (no mask) or 1 (top-left, PyTorch's is_causal), default scale. The implementations
// run on TBB's threads, so they are timed by the wall clock (Google Benchmark appends /real_time).
// GFLOPS counts FlashAttention's flops (attention::flash_attention_flops); peak_fraction is GFLOPS over the
// machine's FMA peak (fma_peak.hpp).
#include <benchmark/benchmark.h>


#include "attention/implementation_registry.hpp"
#include "benches.hpp"
#include "fma_peak.hpp"
#include "guarded_benchmark.hpp"
#include "sdpa_bench_inputs.hpp"

namespace benches {

namespace {

// `reference` materialises the scores and works in double on one thread: at S = 4096 one call
// would take minutes.
constexpr std::size_t kReferenceMaxSeq = 1024;

void run_sdpa(benchmark::State& state, const attention::Implementation* implementation,
              attention::AttentionShape shape, attention::CausalAlignment causal) {
  SdpaBuffers& buffers = sdpa_buffers_for(shape);
  const attention::AttentionProblem problem = buffers.problem(causal);
  for (auto _ : state) {
    implementation->run(problem);
    benchmark::DoNotOptimize(buffers.out.data());
    benchmark::ClobberMemory();
  }
  set_sdpa_gflops(state, shape, causal, fma_peak_gflops());
}

}  // namespace

void register_sdpa_benchmarks() {
  for (const attention::Implementation& implementation : attention::cpu_implementations()) {
    if (!implementation.is_supported()) continue;
    for (const std::size_t seq : kSdpaSeqLengths) {
      if (implementation.name == "reference" && seq > kReferenceMaxSeq) continue;
      for (const std::size_t dim : kSdpaHeadDims) {
        for (const bool causal : {false, true}) {
          register_guarded(sdpa_benchmark_name(implementation.name, sdpa_shape(seq, dim), causal), run_sdpa, &implementation,
                           sdpa_shape(seq, dim),
                           causal ? attention::CausalAlignment::top_left : attention::CausalAlignment::none)
              ->UseRealTime()
              ->Unit(benchmark::kMillisecond);
        }
      }
    }
  }
}

}  // namespace benches
