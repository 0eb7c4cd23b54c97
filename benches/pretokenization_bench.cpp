// pretokenization/<scan>: splitting the long text into cl100k_base pieces, without BPE, with each
// scan of pretokenization_scans.hpp. bytes_per_second counts input bytes, items_per_second pieces.
// ICU needs about 0.1 s per pass over the long text, so the default minimum time bounds regex to
// a few passes (a per-benchmark minimum would add "/min_time:..." to the name).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "bench_inputs.hpp"
#include "benches.hpp"
#include "guarded_benchmark.hpp"
#include "pretokenization_scans.hpp"

namespace benches {

namespace {

void run_scan(benchmark::State& state, const PreTokenizationScan* scan) {
  const std::function<std::size_t()> pass = scan->prepare();
  std::size_t pieces = 0;
  for (auto _ : state) pieces = pass();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * long_text().size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * pieces));
}

}  // namespace

void register_pretokenization_benchmarks() {
  for (const PreTokenizationScan& each : pretokenization_scans())
    register_guarded(std::string("pretokenization/") + each.name, run_scan, &each);
}

}  // namespace benches
