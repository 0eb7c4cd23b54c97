// What the numbers were measured on, beside Google Benchmark's own context (machine, caches,
// and "library_build_type", which is the build of the benchmark library, not of ours).
#include <benchmark/benchmark.h>

#include "benches.hpp"
#include "simd/piece_batch_scanner.hpp"

namespace benches {

void add_build_context() {
  // Set by benches/CMakeLists.txt at configure time.
  benchmark::AddCustomContext("git_commit", TOKBENCH_GIT_COMMIT);
  benchmark::AddCustomContext("build_type", TOKBENCH_BUILD_TYPE);
  benchmark::AddCustomContext("compiler", TOKBENCH_COMPILER);
  benchmark::AddCustomContext("simd_isa", tokenizer::simd::best_piece_batch_scanners().isa);
}

}  // namespace benches
