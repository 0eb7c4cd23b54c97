// calibration/opencl_fma_peak and calibration/opencl_memory_bandwidth: what the OpenCL device can
// do at best (gpu/device_calibration.hpp), the yardsticks of sdpa/opencl_*'s peak_fraction. Each
// iteration is one measurement (several launches, the best counts); the counters are its rate.
#include "opencl_calibration.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <vector>

#include "benchmark_filter.hpp"
#include "gpu/device_calibration.hpp"
#include "gpu/opencl_runtime.hpp"
#include "guarded_benchmark.hpp"

namespace benches {

namespace {

std::vector<std::string>& opencl_benchmark_names() {
  static std::vector<std::string> names;
  return names;
}

void fma_peak_benchmark(benchmark::State& state) {
  double gflops = 0;
  for (auto _ : state) gflops = gpu::measure_fma_peak_gflops(gpu::default_runtime());
  state.counters["GFLOPS"] = gflops;
  state.SetLabel(gpu::default_runtime().device().name);
}

void memory_bandwidth_benchmark(benchmark::State& state) {
  double gbps = 0;
  for (auto _ : state) gbps = gpu::measure_memory_bandwidth_gbps(gpu::default_runtime());
  state.counters["GBps"] = gbps;
  state.SetLabel(gpu::default_runtime().device().name);
}

std::string one_decimal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

}  // namespace

double opencl_fma_peak_gflops() {
  static const double peak = gpu::measure_fma_peak_gflops(gpu::default_runtime());
  return peak;
}

double opencl_memory_gbps() {
  static const double bandwidth = gpu::measure_memory_bandwidth_gbps(gpu::default_runtime());
  return bandwidth;
}

void note_opencl_benchmark(std::string name) { opencl_benchmark_names().push_back(std::move(name)); }

void register_opencl_calibration_benchmarks() {
  const auto add = [](const char* name, void (*measure)(benchmark::State&)) {
    note_opencl_benchmark(name);
    register_guarded(name, measure)->Iterations(1)->Unit(benchmark::kMillisecond);
  };
  add("calibration/opencl_fma_peak", fma_peak_benchmark);
  add("calibration/opencl_memory_bandwidth", memory_bandwidth_benchmark);
}

void add_opencl_calibration_context(std::string_view filter) {
  if (!filter_selects_any(filter, opencl_benchmark_names())) return;
  try {
    benchmark::AddCustomContext("opencl_fma_peak_gflops", one_decimal(opencl_fma_peak_gflops()));
    benchmark::AddCustomContext("opencl_memory_gbps", one_decimal(opencl_memory_gbps()));
  } catch (const std::exception& error) {
    benchmark::AddCustomContext("opencl_fma_peak_gflops", std::string("not measured: ") + error.what());
  }
}

}  // namespace benches
