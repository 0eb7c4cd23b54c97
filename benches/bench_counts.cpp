// build/bench_counts: the workloads of the instruction-count gate (counted_workloads.hpp), one per
// process, for callgrind to count. scripts/bench --counts runs it; --help says how.
#include <tbb/global_control.h>
#include <valgrind/callgrind.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "counted_workloads.hpp"
#include "git_commit.hpp"
#include "isa/isa.hpp"
#include "simd/piece_batch_scanner.hpp"

namespace {

constexpr const char* kUsage =
    "Usage: bench_counts --list | --context | WORKLOAD\n"
    "\n"
    "Runs one workload of the instruction-count gate: its inputs are built, it runs twice\n"
    "uncounted, then its fixed number of iterations with callgrind's collection on (a cold\n"
    "workload's fresh tokenizer, made before each iteration, uncounted), so that\n"
    "\n"
    "  valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no bench_counts WORKLOAD\n"
    "\n"
    "counts exactly the instructions of those iterations. TBB runs on this thread alone (the\n"
    "parallel encoders still cut and stitch their chunks): threads waiting for work spin, and\n"
    "spinning under valgrind adds instructions that change from run to run. Outside valgrind it\n"
    "prints the time per iteration instead. scripts/bench --counts runs every workload and\n"
    "compares the counts with data/baselines/counts/.\n"
    "\n"
    "  --list     every workload, one a line: NAME ITERATIONS\n"
    "  --context  what the counts depend on, as a JSON object: compiler, build type, commit,\n"
    "             ISA cap and the instruction sets chosen\n"
    "\n"
    "Environment:\n"
    "  TOKBENCH_MAX_ISA    the widest instruction set any kernel may use (sse2, avx2, avx512f,\n"
    "                      avx512bw, avx512vbmi2, avx512bf16, amxbf16); the gate sets avx2, the\n"
    "                      widest that valgrind runs\n"
    "  TOKENIZER_DATA_DIR  where the vocabularies and corpora are (default: data/ of the source)\n"
    "\n"
    "Exit status: 0 done, 1 the workload failed, 2 a usage error.\n";

// The first run or two of a workload is not its steady state: a tokenizer builds its long-piece
// tables once it has seen 2 MiB of long pieces, which the 1 MiB adversarial inputs reach on their
// second call, and the benchmarks measure what comes after.
constexpr int kWarmUpRuns = 2;

void print_context() {
  std::printf(
      "{\"compiler\": \"%s\", \"build_type\": \"%s\", \"git_commit\": \"%s\", \"isa_cap\": \"%s\", "
      "\"isa\": \"%s\", \"simd_isa\": \"%s\", \"tbb_threads\": \"1\"}\n",
      TOKBENCH_COMPILER, TOKBENCH_BUILD_TYPE, TOKBENCH_GIT_COMMIT, std::string(isa::name(isa::max_isa())).c_str(),
      std::string(isa::name(isa::widest_usable_isa())).c_str(),
      std::string(isa::name(tokenizer::simd::best_piece_batch_scanners().isa)).c_str());
}

int run_workload(const benches::CountedWorkload& workload) {
  const benches::CountedWorkload::Iteration iteration = workload.prepare();
  for (int run = 0; run < kWarmUpRuns; ++run) {
    if (iteration.refresh) iteration.refresh();
    iteration.run();
  }
  using Clock = std::chrono::steady_clock;
  Clock::duration elapsed{};
  CALLGRIND_START_INSTRUMENTATION;
  if (iteration.refresh) {
    // Collection on for each run alone, not for the refresh before it.
    for (int i = 0; i < workload.iterations; ++i) {
      iteration.refresh();
      const auto start = Clock::now();
      CALLGRIND_TOGGLE_COLLECT;
      iteration.run();
      CALLGRIND_TOGGLE_COLLECT;
      elapsed += Clock::now() - start;
    }
  } else {
    // One toggle pair around every iteration, as before there were refreshes: a pair each would
    // leave the loop's own instructions out and move every stored count.
    const auto start = Clock::now();
    CALLGRIND_TOGGLE_COLLECT;
    for (int i = 0; i < workload.iterations; ++i) iteration.run();
    CALLGRIND_TOGGLE_COLLECT;
    elapsed = Clock::now() - start;
  }
  CALLGRIND_STOP_INSTRUMENTATION;
  const double elapsed_ms = std::chrono::duration<double, std::milli>(elapsed).count();
  if (!RUNNING_ON_VALGRIND) {
    std::printf("%s: %d iterations, %.3f ms each (not under callgrind: nothing counted)\n", workload.name.c_str(),
                workload.iterations, elapsed_ms / workload.iterations);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string_view argument = argv[1];
  if (argument == "-h" || argument == "--help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
  try {
    if (argument == "--context") {
      print_context();
      return 0;
    }
    const std::vector<benches::CountedWorkload> workloads = benches::counted_workloads();
    if (argument == "--list") {
      for (const benches::CountedWorkload& workload : workloads)
        std::printf("%s %d\n", workload.name.c_str(), workload.iterations);
      return 0;
    }
    for (const benches::CountedWorkload& workload : workloads)
      if (workload.name == argument) return run_workload(workload);
    std::fprintf(stderr, "bench_counts: no workload named '%s' (--list names them)\n", argv[1]);
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_counts: %s\n", error.what());
    return 1;
  }
}
