// sdpa/<opencl kernel>/batch:4/heads:8/seq_q:S/seq_k:S/dim:D/causal:C: the OpenCL kernels of
// gpu::opencl_kernels() on the shapes and inputs of sdpa_bench_inputs.hpp (those of the CPU
// family): S in {128, 512, 1024, 4096}, D in {64, 128}, causal 0 (none) or 1 (top-left), default
// scale. Inputs stay on the device; an iteration's time is the sum of its kernels' execution times
// from OpenCL profiling events (manual time), so neither copies nor enqueue overhead count.
// opencl_naive stops at S = 1024: at 4096 its scores buffer alone would be 2 GiB (4 x 8 x 4096²
// floats), more than many devices allocate at once.
// sdpa/<opencl kernel>_end_to_end/...: one shape (S = 1024, D = 64, causal 0) through
// attention::Implementation::run, timed by the wall clock: device buffers, uploads, kernels and the
// download of the output included.
// GFLOPS counts attention::flash_attention_flops, as the CPU family; peak_fraction is GFLOPS over the device's
// own FMA peak (opencl_calibration.hpp). The context names the device (opencl_device); without one
// nothing is registered.
#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "benches.hpp"
#include "gpu/device_attention_problem.hpp"
#include "gpu/opencl_kernel.hpp"
#include "gpu/opencl_error.hpp"
#include "gpu/opencl_implementations.hpp"
#include "gpu/opencl_launch.hpp"
#include "gpu/opencl_runtime.hpp"
#include "guarded_benchmark.hpp"
#include "opencl_calibration.hpp"
#include "sdpa_bench_inputs.hpp"

namespace benches {

namespace {

constexpr std::size_t kNaiveMaxSeq = 1024;
constexpr std::size_t kEndToEndSeq = 1024;
constexpr std::size_t kEndToEndDim = 64;

// The inputs of sdpa_shape(seq, dim) on the device. Like sdpa_buffers_for on the host, the last
// shape's are kept while consecutive benchmarks share it, so each shape is uploaded once.
gpu::DeviceAttentionProblem& device_problem_for(gpu::OpenClRuntime& runtime, std::size_t seq, std::size_t dim) {
  static std::optional<std::pair<std::size_t, std::size_t>> uploaded_shape;
  static std::optional<gpu::DeviceAttentionProblem> uploaded;
  if (uploaded_shape != std::pair(seq, dim)) {
    uploaded.reset();
    const attention::AttentionShape shape = sdpa_shape(seq, dim);
    SdpaBuffers& buffers = sdpa_buffers_for(shape);
    uploaded = gpu::upload_problem(runtime, attention::AttentionProblem{shape, buffers.q, buffers.k, buffers.v, {},
                                                                         attention::CausalAlignment::none,
                                                                         std::nullopt, buffers.out});
    uploaded_shape = std::pair(seq, dim);
  }
  return *uploaded;
}

void run_kernels(benchmark::State& state, const gpu::OpenClKernel* kernel, std::size_t seq, std::size_t dim,
                 attention::CausalAlignment causal) {
  gpu::OpenClRuntime& runtime = gpu::default_runtime();
  gpu::DeviceAttentionProblem& problem = device_problem_for(runtime, seq, dim);
  problem.causal = causal;
  const std::unique_ptr<gpu::PreparedSdpa> prepared = kernel->prepare(runtime, problem.shape);
  // The first launch of a kernel may compile its work-group function (PoCL does).
  gpu::profiled_seconds(prepared->enqueue(problem));
  for (auto _ : state) state.SetIterationTime(gpu::profiled_seconds(prepared->enqueue(problem)));
  set_sdpa_gflops(state, problem.shape, causal, opencl_fma_peak_gflops());
}

void run_end_to_end(benchmark::State& state, const attention::Implementation* implementation) {
  const attention::AttentionShape shape = sdpa_shape(kEndToEndSeq, kEndToEndDim);
  SdpaBuffers& buffers = sdpa_buffers_for(shape);
  const attention::AttentionProblem problem{
      shape, buffers.q, buffers.k, buffers.v, {}, attention::CausalAlignment::none, std::nullopt, buffers.out};
  implementation->run(problem);
  for (auto _ : state) {
    implementation->run(problem);
    benchmark::DoNotOptimize(buffers.out.data());
    benchmark::ClobberMemory();
  }
  set_sdpa_gflops(state, shape, attention::CausalAlignment::none, opencl_fma_peak_gflops());
}

}  // namespace

void register_opencl_sdpa_benchmarks() {
  const gpu::OpenClRuntime* runtime = nullptr;
  try {
    runtime = &gpu::default_runtime();
  } catch (const gpu::NoOpenClDeviceError& error) {
    benchmark::AddCustomContext("opencl_device", std::string("none, no sdpa/opencl_* benchmarks: ") + error.what());
    return;
  }
  benchmark::AddCustomContext("opencl_device", runtime->device().describe());
  register_opencl_calibration_benchmarks();

  for (const gpu::OpenClKernel& kernel : gpu::opencl_kernels()) {
    if (!kernel.runs_on(*runtime)) continue;
    for (const std::size_t seq : kSdpaSeqLengths) {
      if (kernel.name == "opencl_naive" && seq > kNaiveMaxSeq) continue;
      for (const std::size_t dim : kSdpaHeadDims) {
        for (const bool causal : {false, true}) {
          const std::string name = sdpa_benchmark_name(kernel.name, sdpa_shape(seq, dim), causal);
          note_opencl_benchmark(name);
          register_guarded(name, run_kernels, &kernel, seq, dim,
                           causal ? attention::CausalAlignment::top_left : attention::CausalAlignment::none)
              ->UseManualTime()
              ->Unit(benchmark::kMillisecond);
        }
      }
    }
  }
  for (const attention::Implementation& implementation : gpu::opencl_implementations()) {
    if (implementation.name == "opencl_naive" || !implementation.is_supported()) continue;
    const std::string family = std::string(implementation.name) + "_end_to_end";
    const std::string name = sdpa_benchmark_name(family, sdpa_shape(kEndToEndSeq, kEndToEndDim), false);
    note_opencl_benchmark(name);
    register_guarded(name, run_end_to_end, &implementation)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace benches
