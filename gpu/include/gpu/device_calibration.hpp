#pragma once

#include "gpu/opencl_runtime.hpp"

namespace gpu {

// What the runtime's device can do at best, measured with the kernels of gpu/kernels/fma_peak.cl
// and memory_bandwidth.cl: the yardsticks of the OpenCL benchmarks' peak_fraction. Each runs for
// a fraction of a second and returns the best of a few timed launches (kernel time from profiling
// events).

// Float32 FMA rate in GFLOP/s (10^9 flops per second, an FMA counting two), every compute unit
// busy.
double measure_fma_peak_gflops(OpenClRuntime& runtime);

// Global-memory read rate in GB/s (10^9 bytes per second), over a buffer larger than the caches:
// 1 GiB on a GPU (or the largest allocation, if smaller), 256 MiB on other devices.
double measure_memory_bandwidth_gbps(OpenClRuntime& runtime);

}  // namespace gpu
