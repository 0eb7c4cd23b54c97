#pragma once

#include <functional>
#include <string>
#include <vector>

namespace benches {

// One workload of the instruction-count gate (build/bench_counts): the work of one benchmark,
// done a fixed number of times outside Google Benchmark's adaptive loop, so that every run does
// exactly the same work. Its name is the benchmark's run name less the clock suffix
// (/real_time), or, for shapes no benchmark measures, a name of the family's scheme.
struct CountedWorkload {
  // One iteration: `run`, counted, after `refresh` where there is one, uncounted: the cold
  // regime's fresh tokenizer (cold_encoding.hpp), which `run` then encodes with.
  struct Iteration {
    std::function<void()> run;
    std::function<void()> refresh = {};
  };
  std::string name;
  // Iterations counted after the uncounted warm-up runs: enough that a per-call start-up cost does
  // not dominate the small inputs.
  int iterations;
  // Builds the inputs (uncounted) and returns the iteration.
  std::function<Iteration()> prepare;
};

// Every workload, in a fixed order: each encoding family with every supported encoder,
// encode_batch with every encoder, each cold family (cold_encoding.hpp) with every encoder, the
// pretokenization scans, vocabulary_load of every built-in encoding, decode/long_encoding, and
// every CPU SDPA implementation at two small GQA shapes, causal and not.
std::vector<CountedWorkload> counted_workloads();

}  // namespace benches
