// What the numbers were measured on, beside Google Benchmark's own context (machine, caches,
// and "library_build_type", which is the build of the benchmark library, not of ours).
#include <benchmark/benchmark.h>

#include <fstream>
#include <string>

#include "benches.hpp"
#include "git_commit.hpp"
#include "simd/piece_batch_scanner.hpp"

namespace benches {

namespace {

// The processor's name as Linux reports it ("unknown" elsewhere): Google Benchmark's context
// gives clock and caches but not the model, which a machine fingerprint needs.
std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return "unknown";
}

}  // namespace

void add_build_context() {
  benchmark::AddCustomContext("cpu_model", cpu_model());
  // Written at build time by benches/write_git_commit.cmake; the others set at configure time
  // by benches/CMakeLists.txt.
  benchmark::AddCustomContext("git_commit", TOKBENCH_GIT_COMMIT);
  benchmark::AddCustomContext("build_type", TOKBENCH_BUILD_TYPE);
  benchmark::AddCustomContext("compiler", TOKBENCH_COMPILER);
  benchmark::AddCustomContext("simd_isa", std::string(isa::name(tokenizer::simd::best_piece_batch_scanners().isa)));
}

}  // namespace benches
