// sdpa/<implementation>/batch:4/heads:8/seq_q:S/seq_k:S/dim:D/causal:C: forward SDPA on the CPU,
// one benchmark per supported implementation of attention::cpu_implementations() and
// cpu_bf16_implementations() (on the same inputs rounded to bfloat16) and shape of
// sdpa_bench_inputs.hpp: S in {128, 512, 1024, 4096} (the references up to 1024), D in {64, 128},
// causal 0 (no mask) or 1 (top-left, PyTorch's is_causal), default scale. The implementations
// run on TBB's threads, so they are timed by the wall clock (Google Benchmark appends /real_time).
// GFLOPS counts FlashAttention's flops (attention::flash_attention_flops); peak_fraction is GFLOPS
// over the machine's FMA peak, or its bfloat16 dot-product peak for bfloat16 (fma_peak.hpp).
#include <benchmark/benchmark.h>

#include <span>
#include <type_traits>

#include "attention/implementation_registry.hpp"
#include "benches.hpp"
#include "fma_peak.hpp"
#include "guarded_benchmark.hpp"
#include "sdpa_bench_inputs.hpp"

namespace benches {

namespace {

// The references materialise the scores and work in double on one thread: at S = 4096 one call
// would take minutes.
constexpr std::size_t kReferenceMaxSeq = 1024;

template <class Element>
void run_sdpa(benchmark::State& state, const attention::BasicImplementation<Element>* implementation,
              attention::AttentionShape shape, attention::CausalAlignment causal) {
  SdpaBuffers& buffers = sdpa_buffers_for(shape);
  constexpr bool kBf16 = std::is_same_v<Element, attention::bfloat16>;
  const attention::BasicAttentionProblem<Element> problem = buffers.problem_of<Element>(causal);
  for (auto _ : state) {
    implementation->run(problem);
    benchmark::DoNotOptimize(problem.out.data());
    benchmark::ClobberMemory();
  }
  set_sdpa_gflops(state, shape, causal, kBf16 ? bf16_peak_gflops() : fma_peak_gflops());
}

template <class Element>
void register_family(std::span<const attention::BasicImplementation<Element>> implementations) {
  for (const attention::BasicImplementation<Element>& implementation : implementations) {
    if (!implementation.is_supported()) continue;
    const bool reference = implementation.name.starts_with("reference");
    for (const std::size_t seq : kSdpaSeqLengths) {
      if (reference && seq > kReferenceMaxSeq) continue;
      for (const std::size_t dim : kSdpaHeadDims) {
        for (const bool causal : {false, true}) {
          register_guarded(sdpa_benchmark_name(implementation.name, sdpa_shape(seq, dim), causal),
                           run_sdpa<Element>, &implementation, sdpa_shape(seq, dim),
                           causal ? attention::CausalAlignment::top_left : attention::CausalAlignment::none)
              ->UseRealTime()
              ->Unit(benchmark::kMillisecond);
        }
      }
    }
  }
}

}  // namespace

void register_sdpa_benchmarks() {
  register_family(attention::cpu_implementations());
  register_family(attention::cpu_bf16_implementations());
}

}  // namespace benches
