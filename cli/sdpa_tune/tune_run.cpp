#include "tune_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "attention/flop_count.hpp"
#include "attention/implementation_registry.hpp"
#include "attention/uniform_values.hpp"
#include "gpu/cpu_sdpa.hpp"
#include "gpu/device_attention_problem.hpp"
#include "gpu/mma_sdpa.hpp"
#include "gpu/opencl_launch.hpp"
#include "gpu/opencl_runtime.hpp"
#include "gpu/opencl_tuning.hpp"
#include "gpu/tiled_sdpa.hpp"

namespace sdpa_tune {

namespace {

using attention::AttentionShape;
using attention::uniform_values;
using attention::CausalAlignment;

// As the OpenCL agreement tests: |ours - reference| <= 1e-4 + 1e-4 |reference|.
constexpr float kTolerance = 1e-4f;

// A problem's host tensors; out receives what a kernel computes.
struct HostProblem {
  AttentionShape shape;
  CausalAlignment causal;
  std::vector<float> q, k, v, mask, out;

  HostProblem(const AttentionShape& problem_shape, CausalAlignment alignment, bool masked)
      : shape(problem_shape),
        causal(alignment),
        q(uniform_values(shape.q_elements(), 1)),
        k(uniform_values(shape.k_elements(), 2)),
        v(uniform_values(shape.v_elements(), 3)),
        out(shape.out_elements()) {
    if (masked) {
      mask = uniform_values(shape.mask_elements(), 4);
      for (std::size_t i = 0; i < mask.size(); i += 7) mask[i] = -std::numeric_limits<float>::infinity();
    }
  }

  attention::AttentionProblem view() { return {shape, q, k, v, mask, causal, std::nullopt, out}; }
};

std::unique_ptr<gpu::PreparedSdpa> prepare(gpu::OpenClRuntime& runtime, const AttentionShape& shape,
                                           const gpu::KernelParameters& parameters) {
  if (const auto* mma = std::get_if<gpu::MmaSdpaParameters>(&parameters)) return gpu::prepare_mma_sdpa(runtime, shape, *mma);
  if (const auto* cpu = std::get_if<gpu::CpuSdpaParameters>(&parameters)) return gpu::prepare_cpu_sdpa(runtime, shape, *cpu);
  return gpu::prepare_tiled_sdpa(runtime, shape, std::get<gpu::TiledSdpaParameters>(parameters));
}

std::string describe(const gpu::KernelParameters& parameters) {
  return std::visit([](const auto& kernel_parameters) { return kernel_parameters.to_string(); }, parameters);
}

// The kernel's candidates for a dimension, the default first where the sweep has it elsewhere.
std::vector<gpu::KernelParameters> candidates_of(const gpu::OpenClRuntime& runtime, std::string_view kernel,
                                                 std::size_t dim) {
  std::vector<gpu::KernelParameters> candidates;
  const auto add = [&candidates](const auto& list) { candidates.insert(candidates.end(), list.begin(), list.end()); };
  if (kernel == "opencl_mma") {
    add(gpu::mma_parameter_candidates(dim, dim, runtime.limits()));
  } else if (kernel == "opencl_cpu") {
    add(gpu::cpu_parameter_candidates());
  } else {
    add(gpu::tiled_parameter_candidates(dim, dim, runtime.limits()));
  }
  return candidates;
}

gpu::KernelParameters default_of(const gpu::OpenClRuntime& runtime, std::string_view kernel, std::size_t dim) {
  if (kernel == "opencl_mma") return gpu::default_mma_parameters(dim, dim, runtime.limits());
  if (kernel == "opencl_cpu") return gpu::CpuSdpaParameters{};
  return gpu::default_tiled_parameters(dim, dim, runtime.limits(), (runtime.device().type & CL_DEVICE_TYPE_CPU) != 0);
}

// The check every candidate passes before it is timed: grouped queries, fewer queries than keys
// under a bottom-right causal limit, a mask with -inf, sizes no tile divides.
class Check {
 public:
  Check(gpu::OpenClRuntime& runtime, std::size_t dim)
      : host_(AttentionShape{1, 4, 2, 100, 300, dim, dim}, CausalAlignment::bottom_right, true),
        expected_(host_.shape.out_elements()) {
    attention::AttentionProblem reference = host_.view();
    reference.out = expected_;
    attention::sdpa_reference(reference);
    device_.emplace(gpu::upload_problem(runtime, host_.view()));
  }

  // "" when the candidate agrees with the reference, else the first disagreement.
  std::string disagreement(gpu::OpenClRuntime& runtime, const gpu::KernelParameters& parameters) {
    gpu::profiled_seconds(prepare(runtime, host_.shape, parameters)->enqueue(*device_));
    gpu::download_output(runtime, *device_, host_.out);
    for (std::size_t i = 0; i < expected_.size(); ++i) {
      if (!(std::abs(host_.out[i] - expected_[i]) <= kTolerance + kTolerance * std::abs(expected_[i]))) {
        return "element " + std::to_string(i) + " is " + std::to_string(host_.out[i]) + ", the reference " +
               std::to_string(expected_[i]);
      }
    }
    return "";
  }

 private:
  HostProblem host_;
  std::vector<float> expected_;
  std::optional<gpu::DeviceAttentionProblem> device_;
};

struct Best {
  gpu::KernelParameters parameters;
  double gflops = 0;
};

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

Best tune_dimension(gpu::OpenClRuntime& runtime, std::string_view kernel, std::size_t dim, const TuneOptions& options) {
  std::vector<gpu::KernelParameters> candidates = candidates_of(runtime, kernel, dim);
  if (options.limit != 0 && candidates.size() > options.limit) candidates.resize(options.limit);
  const gpu::KernelParameters fallback = default_of(runtime, kernel, dim);
  Check check(runtime, dim);
  HostProblem timed(AttentionShape{4, 8, 8, options.seq, options.seq, dim, dim}, CausalAlignment::none, false);
  const gpu::DeviceAttentionProblem device = gpu::upload_problem(runtime, timed.view());
  const double flops = attention::flash_attention_flops(timed.shape, CausalAlignment::none);

  Best best;
  std::size_t index = 0;
  const auto start = std::chrono::steady_clock::now();
  const std::string name(kernel);
  for (const gpu::KernelParameters& parameters : candidates) {
    if (options.seconds != 0 && std::chrono::steady_clock::now() - start > std::chrono::seconds(options.seconds)) {
      std::fprintf(stderr, "[%s, dim %zu] --seconds %zu spent: %zu of %zu candidates left untried\n", name.c_str(), dim,
                   options.seconds, candidates.size() - index, candidates.size());
      break;
    }
    ++index;
    std::fprintf(stderr, "[%s, dim %zu, %zu/%zu] %s%s: ", name.c_str(), dim, index, candidates.size(),
                 describe(parameters).c_str(), parameters == fallback ? " (the default)" : "");
    try {
      const std::string wrong = check.disagreement(runtime, parameters);
      if (!wrong.empty()) {
        std::fprintf(stderr, "skipped, wrong: %s\n", wrong.c_str());
        continue;
      }
      const std::unique_ptr<gpu::PreparedSdpa> prepared = prepare(runtime, timed.shape, parameters);
      double seconds = gpu::profiled_seconds(prepared->enqueue(device));
      for (std::size_t repeat = 0; repeat < options.repeats; ++repeat) {
        seconds = std::min(seconds, gpu::profiled_seconds(prepared->enqueue(device)));
      }
      const double gflops = flops / seconds * 1e-9;
      const bool better = gflops > best.gflops;
      if (better) best = Best{parameters, gflops};
      std::fprintf(stderr, "%.3f ms, %.0f GFLOP/s%s\n", seconds * 1e3, gflops, better ? " (best so far)" : "");
    } catch (const std::exception& error) {
      std::fprintf(stderr, "skipped: %s\n", first_line(error.what()).c_str());
    }
  }
  if (best.gflops == 0) {
    throw std::runtime_error("no candidate of " + name + " worked for dim " + std::to_string(dim) + " on " +
                             runtime.device().describe());
  }
  return best;
}

// The kernels asked for, or those the device prefers: opencl_cpu on a CPU device (opencl_tiled
// runs there at a few GFLOP/s), opencl_tiled and, with tensor cores, opencl_mma elsewhere.
std::vector<std::string> tuned_kernels(const gpu::OpenClRuntime& runtime, const TuneOptions& options) {
  const bool tensor_cores = gpu::has_tf32_tensor_cores(runtime.limits());
  if (options.kernels.empty()) {
    if ((runtime.device().type & CL_DEVICE_TYPE_CPU) != 0) return {"opencl_cpu"};
    if (tensor_cores) return {"opencl_tiled", "opencl_mma"};
    return {"opencl_tiled"};
  }
  for (const std::string& kernel : options.kernels) {
    if (kernel == "opencl_mma" && !tensor_cores) {
      throw std::runtime_error("opencl_mma does not run on " + runtime.device().describe() +
                               ": it needs NVIDIA's TF32 tensor cores (compute capability 8.0 or later)");
    }
  }
  return options.kernels;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

}  // namespace

void run_tune(const TuneOptions& options) {
  gpu::OpenClRuntime& runtime = gpu::default_runtime();
  std::fprintf(stderr, "device: %s\n", runtime.device().describe().c_str());
  const gpu::DeviceLimits& limits = runtime.limits();
  std::fprintf(stderr, "limits: %zu bytes of local memory, %zu work-items a group\n", limits.local_memory_bytes,
               limits.max_work_group_size);
  std::vector<gpu::TuningEntry> entries;
  std::string figures;
  std::string kernels;
  for (const std::string& kernel : tuned_kernels(runtime, options)) {
    kernels += (kernels.empty() ? "" : " and ") + kernel;
    for (const std::size_t dim : options.dims) {
      const Best best = tune_dimension(runtime, kernel, dim, options);
      entries.push_back(gpu::TuningEntry{dim, dim, best.parameters});
      char figure[128];
      std::snprintf(figure, sizeof figure, "; %s dim %zu: %.0f GFLOP/s", kernel.c_str(), dim, best.gflops);
      figures += figure;
    }
  }
  const std::string comment = kernels + " on " + runtime.device().name + " (" + runtime.device().platform_name +
                              "), by sdpa_tune on " + today() + ", batch 4, 8 heads, seq " +
                              std::to_string(options.seq) + ", non-causal" + figures;
  const std::string text = gpu::format_tuning(comment, entries);
  if (!options.out_folder) {
    std::fputs(text.c_str(), stdout);
    return;
  }
  const std::filesystem::path folder(*options.out_folder);
  std::filesystem::create_directories(folder);
  const std::filesystem::path path = folder / gpu::tuning_file_name(runtime.device().name);
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (!file) throw std::runtime_error("cannot write " + path.string());
  std::fprintf(stderr, "wrote %s\n", path.string().c_str());
}

}  // namespace sdpa_tune
