// sdpa_decode/<implementation>/batch:B/heads:32/kv_heads:8/seq_q:Q/seq_k:S/dim:128: decoding on
// the CPU, one benchmark per implementation of attention::cpu_implementations() and
// cpu_bf16_implementations() but the single-threaded double-precision references (bfloat16 on the
// same inputs rounded, its K and V bytes counted at two an element), and shape of
// sdpa_bench_inputs.hpp: B in {1, 8},
// Q in {1, 4}, S in {1024, 4096, 16384, 65536}, bottom-right causal alignment. Timed by the wall
// clock (/real_time): the implementations run on TBB's threads. Decoding streams K and V, so
// beside GFLOPS and peak_fraction each reports GBps (K and V bytes per second) and
// bandwidth_fraction, against calibration/memory_bandwidth (memory_bandwidth.hpp).
#include <benchmark/benchmark.h>

#include <span>
#include <string>
#include <type_traits>

#include "attention/implementation_registry.hpp"
#include "benches.hpp"
#include "fma_peak.hpp"
#include "guarded_benchmark.hpp"
#include "memory_bandwidth.hpp"
#include "sdpa_bench_inputs.hpp"

namespace benches {

namespace {

template <class Element>
void run_decode(benchmark::State& state, const attention::BasicImplementation<Element>* implementation,
                attention::AttentionShape shape) {
  SdpaBuffers& buffers = sdpa_buffers_for(shape);
  constexpr bool kBf16 = std::is_same_v<Element, attention::bfloat16>;
  const attention::BasicAttentionProblem<Element> problem =
      buffers.problem_of<Element>(attention::CausalAlignment::bottom_right);
  for (auto _ : state) {
    implementation->run(problem);
    benchmark::DoNotOptimize(problem.out.data());
    benchmark::ClobberMemory();
  }
  set_decode_counters(state, shape, kBf16 ? bf16_peak_gflops() : fma_peak_gflops(), memory_bandwidth_gbps(),
                      sizeof(Element));
}

template <class Element>
void register_family(std::span<const attention::BasicImplementation<Element>> implementations) {
  for (const attention::BasicImplementation<Element>& implementation : implementations) {
    // The references would take tens of seconds a call at the largest shapes.
    if (!implementation.is_supported() || implementation.name.starts_with("reference")) continue;
    for (const std::size_t batch : kDecodeBatches)
      for (const std::size_t seq_q : kDecodeQueries)
        for (const std::size_t seq_k : kDecodeKeys) {
          const attention::AttentionShape shape = decode_shape(batch, seq_q, seq_k);
          const std::string name = sdpa_decode_benchmark_name(implementation.name, shape);
          note_memory_bound_benchmark(name + "/real_time");
          register_guarded(name, run_decode<Element>, &implementation, shape)
              ->UseRealTime()
              ->Unit(benchmark::kMillisecond);
        }
  }
}

}  // namespace

void register_sdpa_decode_benchmarks() {
  register_family(attention::cpu_implementations());
  register_family(attention::cpu_bf16_implementations());
}

}  // namespace benches
