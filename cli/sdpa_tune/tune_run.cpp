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
#include <vector>

#include "attention/flop_count.hpp"
#include "attention/implementation_registry.hpp"
#include "attention/uniform_values.hpp"
#include "gpu/device_attention_problem.hpp"
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
  std::string disagreement(gpu::OpenClRuntime& runtime, const gpu::TiledSdpaParameters& parameters) {
    gpu::profiled_seconds(gpu::prepare_tiled_sdpa(runtime, host_.shape, parameters)->enqueue(*device_));
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
  gpu::TiledSdpaParameters parameters;
  double gflops = 0;
};

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

Best tune_dimension(gpu::OpenClRuntime& runtime, std::size_t dim, const TuneOptions& options) {
  std::vector<gpu::TiledSdpaParameters> candidates = gpu::tiled_parameter_candidates(dim, dim, runtime.limits());
  if (options.limit != 0 && candidates.size() > options.limit) candidates.resize(options.limit);
  const gpu::TiledSdpaParameters fallback = gpu::default_tiled_parameters(
      dim, dim, runtime.limits(), (runtime.device().type & CL_DEVICE_TYPE_CPU) != 0);
  Check check(runtime, dim);
  HostProblem timed(AttentionShape{4, 8, 8, options.seq, options.seq, dim, dim}, CausalAlignment::none, false);
  const gpu::DeviceAttentionProblem device = gpu::upload_problem(runtime, timed.view());
  const double flops = attention::flash_attention_flops(timed.shape, CausalAlignment::none);

  Best best;
  std::size_t index = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const gpu::TiledSdpaParameters& parameters : candidates) {
    if (options.seconds != 0 && std::chrono::steady_clock::now() - start > std::chrono::seconds(options.seconds)) {
      std::fprintf(stderr, "[dim %zu] --seconds %zu spent: %zu of %zu candidates left untried\n", dim, options.seconds,
                   candidates.size() - index, candidates.size());
      break;
    }
    ++index;
    std::fprintf(stderr, "[dim %zu, %zu/%zu] %s%s: ", dim, index, candidates.size(), parameters.to_string().c_str(),
                 parameters == fallback ? " (the default)" : "");
    try {
      const std::string wrong = check.disagreement(runtime, parameters);
      if (!wrong.empty()) {
        std::fprintf(stderr, "skipped, wrong: %s\n", wrong.c_str());
        continue;
      }
      const std::unique_ptr<gpu::PreparedSdpa> prepared = gpu::prepare_tiled_sdpa(runtime, timed.shape, parameters);
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
    throw std::runtime_error("no tile shape of opencl_tiled worked for dim " + std::to_string(dim) + " on " +
                             runtime.device().describe());
  }
  return best;
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
  for (const std::size_t dim : options.dims) {
    const Best best = tune_dimension(runtime, dim, options);
    entries.push_back(gpu::TuningEntry{dim, dim, best.parameters});
    char figure[96];
    std::snprintf(figure, sizeof figure, "; dim %zu: %.0f GFLOP/s", dim, best.gflops);
    figures += figure;
  }
  const std::string comment = "opencl_tiled on " + runtime.device().name + " (" + runtime.device().platform_name +
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
