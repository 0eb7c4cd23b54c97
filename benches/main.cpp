#include <benchmark/benchmark.h>

#include "benches.hpp"

int main(int argc, char** argv) {
  benches::register_encoding_benchmarks();
  benches::register_batch_benchmarks();
  benches::register_pretokenization_benchmarks();
  benches::add_build_context();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
