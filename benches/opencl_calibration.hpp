#pragma once

#include <string>
#include <string_view>

namespace benches {

// The OpenCL device's yardsticks (gpu/device_calibration.hpp), each measured once per process on
// first use: the peak_fraction of sdpa/opencl_* is against the device's FMA peak, not the host's.
double opencl_fma_peak_gflops();
double opencl_memory_gbps();

// Registers calibration/opencl_fma_peak (GFLOPS) and calibration/opencl_memory_bandwidth (GBps).
void register_opencl_calibration_benchmarks();

// Remembers a registered benchmark that runs on the OpenCL device.
void note_opencl_benchmark(std::string name);

// When `filter` (Google Benchmark's --benchmark_filter: a regular expression, a leading '-'
// negating it) selects any OpenCL benchmark, measures both yardsticks and adds them to the
// context as opencl_fma_peak_gflops and opencl_memory_gbps; otherwise nothing runs on the device.
void add_opencl_calibration_context(std::string_view filter);

}  // namespace benches
