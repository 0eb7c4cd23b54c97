#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <string>

#include "benches.hpp"
#include "error_log.hpp"
#include "error_logging_reporter.hpp"
#include "memory_bandwidth.hpp"

namespace {

void print_help() {
  benchmark::PrintDefaultHelp();
  std::fputs(
      "\nBenchmark families (see docs/benchmarks.md): *_encoding*/<encoder>, encode_batch/<encoder>,\n"
      "pretokenization/<scanner>, vocabulary_load/<encoding>, decode/long_encoding,\n"
      "calibration/fma_peak, calibration/bf16_peak, calibration/memory_bandwidth,\n"
      "calibration/opencl_fma_peak, calibration/opencl_memory_bandwidth,\n"
      "sdpa/<implementation>/batch:B/heads:H/seq_q:S/seq_k:S/dim:D/causal:C\n"
      "(CPU implementations, float and *_bf16, and, with an OpenCL device, opencl_*),\n"
      "sdpa_decode/<implementation>/batch:B/heads:32/kv_heads:8/seq_q:Q/seq_k:S/dim:128.\n"
      "\nEnvironment:\n"
      "  BENCHES_ERROR_LOG  a file to which every error and warning of the run is appended with\n"
      "                     a UTC timestamp (\"1\": benches-error.log in the current folder)\n"
      "  TOKENIZER_DATA_DIR where the vocabularies and corpora are (default: data/ of the source)\n"
      "  TOKBENCH_MAX_ISA   the widest instruction set any kernel may use: sse2, avx2, avx512f,\n"
      "                     avx512bw, avx512vbmi2, avx512bf16 or amxbf16 (default: the widest\n"
      "                     this CPU runs)\n"
      "  TOKBENCH_BF16_PAIRS\n"
      "                     1 or 0: the bfloat16 kernels' products by vdpbf16ps or widened to\n"
      "                     float, in place of the first call's timing of both (where\n"
      "                     AVX512-BF16 runs)\n"
      "  OPENCL_DEVICE      the OpenCL device: an index or part of a name (default: the first GPU,\n"
      "                     else the first CPU device)\n"
      "  OPENCL_TUNING_DIR  a folder of tuning files (sdpa_tune --out) read before the built-in ones\n",
      stdout);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    benches::open_error_log_from_environment();
    benches::register_encoding_benchmarks();
    benches::register_batch_benchmarks();
    benches::register_cold_encoding_benchmarks();
    benches::register_pretokenization_benchmarks();
    benches::register_vocabulary_benchmarks();
    benches::register_calibration_benchmarks();
    benches::register_memory_bandwidth_benchmark();
    benches::register_sdpa_benchmarks();
    benches::register_sdpa_decode_benchmarks();
    benches::register_opencl_sdpa_benchmarks();
    benches::add_build_context();
  } catch (const std::exception& error) {
    benches::log_error(error.what());
    return 1;
  }
  benchmark::Initialize(&argc, argv, print_help);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    benches::log_error("unrecognized arguments; see --help");
    return 1;
  }
  benches::add_fma_peak_context();
  benches::add_memory_bandwidth_context(benchmark::GetBenchmarkFilter());
  benches::add_opencl_calibration_context(benchmark::GetBenchmarkFilter());
  benches::ErrorLoggingReporter reporter(*benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
