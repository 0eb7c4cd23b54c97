#include "gpu/device_calibration.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "gpu/opencl_launch.hpp"
#include "gpu/opencl_memory.hpp"
#include "gpu/opencl_program.hpp"

namespace gpu {

namespace {

constexpr int kTimedLaunches = 3;
// Launches shorter than this are lengthened: profiling-clock resolution and launch overhead.
constexpr double kMinimumSeconds = 0.02;

std::size_t work_group_size(const OpenClRuntime& runtime) {
  return std::min<std::size_t>(256, runtime.limits().max_work_group_size);
}

// Items enough to fill every compute unit several times over.
std::size_t item_count(const OpenClRuntime& runtime) {
  return runtime.limits().compute_units * 8 * work_group_size(runtime);
}

}  // namespace

double measure_fma_peak_gflops(OpenClRuntime& runtime) {
  constexpr std::array<std::string_view, 1> kFiles{"fma_peak.cl"};
  const Kernel kernel = create_kernel(runtime.program(kFiles, ""), "fma_peak");
  const std::size_t items = item_count(runtime);
  const Buffer out = create_buffer(runtime.context(), CL_MEM_WRITE_ONLY, items * sizeof(float));
  const std::array global{items};
  const std::array local{work_group_size(runtime)};
  cl_int rounds = 64;
  double best_seconds = 0;
  for (;;) {
    set_kernel_arguments(kernel.get(), out, rounds, cl_float{0.999999f}, cl_float{1e-7f});
    best_seconds = profiled_seconds(std::array{enqueue_kernel(runtime.queue(), kernel.get(), global, local)});
    if (best_seconds >= kMinimumSeconds || rounds >= (1 << 24)) break;
    rounds *= 2;
  }
  for (int launch = 0; launch < kTimedLaunches; ++launch) {
    best_seconds = std::min(best_seconds,
                            profiled_seconds(std::array{enqueue_kernel(runtime.queue(), kernel.get(), global, local)}));
  }
  const double flops = 2.0 * 256 * static_cast<double>(rounds) * static_cast<double>(items);
  return flops / best_seconds * 1e-9;
}

double measure_memory_bandwidth_gbps(OpenClRuntime& runtime) {
  constexpr std::array<std::string_view, 1> kFiles{"memory_bandwidth.cl"};
  const bool gpu = (runtime.device().type & CL_DEVICE_TYPE_GPU) != 0;
  const Kernel kernel =
      create_kernel(runtime.program(kFiles, gpu ? "-DCONTIGUOUS=0" : "-DCONTIGUOUS=1"), "memory_read");
  const std::size_t wanted = gpu ? std::size_t{1} << 30 : std::size_t{256} << 20;
  const std::size_t bytes = std::min(wanted, runtime.limits().max_allocation_bytes) / 16 * 16;
  const std::size_t items = item_count(runtime);
  const Buffer in = create_buffer(runtime.context(), CL_MEM_READ_ONLY, bytes);
  const Buffer out = create_buffer(runtime.context(), CL_MEM_WRITE_ONLY, items * sizeof(float));
  // Zeros, so that the sums are finite whatever the allocation held.
  const float zero = 0.0f;
  check(clEnqueueFillBuffer(runtime.queue(), in.get(), &zero, sizeof zero, 0, bytes, 0, nullptr, nullptr),
        "clEnqueueFillBuffer");
  set_kernel_arguments(kernel.get(), in, cl_ulong{bytes / 16}, out);
  const std::array global{items};
  const std::array local{work_group_size(runtime)};
  double best_seconds = profiled_seconds(std::array{enqueue_kernel(runtime.queue(), kernel.get(), global, local)});
  for (int launch = 0; launch < kTimedLaunches + 2; ++launch) {
    best_seconds = std::min(best_seconds,
                            profiled_seconds(std::array{enqueue_kernel(runtime.queue(), kernel.get(), global, local)}));
  }
  return static_cast<double>(bytes) / best_seconds * 1e-9;
}

}  // namespace gpu
