#include "gpu/mma_sdpa.hpp"

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/opencl_launch.hpp"
#include "gpu/opencl_program.hpp"
#include "gpu/opencl_tuning.hpp"
#include "opencl_kernel_entries.hpp"
#include "sdpa_kernel_arguments.hpp"

namespace gpu {

namespace {

constexpr std::array<std::string_view, 2> kProgramFiles{"sdpa_common.cl", "mma_sdpa.cl"};
constexpr std::size_t kWarpSize = 32;
constexpr std::size_t kWarpRows = 16;

std::size_t padded(std::size_t dim) { return (dim + 7) / 8 * 8; }

class PreparedMmaSdpa final : public PreparedSdpa {
 public:
  PreparedMmaSdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape, const MmaSdpaParameters& parameters)
      : runtime_(runtime), shape_(shape), parameters_(parameters) {
    const std::string problem =
        mma_parameters_problem(parameters, shape.head_dim, shape.value_dim, runtime.limits());
    if (!problem.empty()) {
      throw std::invalid_argument("opencl_mma on " + runtime.device().name + ": " + parameters.to_string() + ": " +
                                  problem);
    }
    // Dimensions and tiles are compile-time constants: the fragments live in registers only if
    // every index into them is known when compiling. One program per combination, cached.
    const std::string options = "-DHEAD_DIM=" + std::to_string(shape.head_dim) +
                                " -DVALUE_DIM=" + std::to_string(shape.value_dim) +
                                " -DWARPS=" + std::to_string(parameters.warps) +
                                " -DKEY_TILE=" + std::to_string(parameters.key_tile) +
                                " -DQUERY_SPLIT=" + std::to_string(parameters.query_split ? 1 : 0) +
                                " -DPREFETCH=" + std::to_string(parameters.prefetch ? 1 : 0) +
                                " -DEMULATE=" + std::to_string(parameters.emulate ? 1 : 0);
    kernel_ = create_kernel(runtime.program(kProgramFiles, options), "mma_attention");
  }

  std::vector<Event> enqueue(const DeviceAttentionProblem& problem) override {
    const std::size_t query_tile = parameters_.warps * kWarpRows;
    const std::size_t query_tiles = (shape_.seq_q + query_tile - 1) / query_tile;
    return enqueue_fused_sdpa(runtime_.queue(), kernel_.get(), problem, shape_, query_tiles,
                              parameters_.warps * kWarpSize);
  }

 private:
  OpenClRuntime& runtime_;
  attention::AttentionShape shape_;
  MmaSdpaParameters parameters_;
  Kernel kernel_;
};

bool runs_on_tensor_cores(const OpenClRuntime& runtime) { return has_tf32_tensor_cores(runtime.limits()); }

}  // namespace

std::size_t MmaSdpaParameters::local_memory_bytes(std::size_t head_dim, std::size_t value_dim) const {
  // The strides of mma_sdpa.cl's tiles, and its exchange buffers when emulating.
  const std::size_t tiles = key_tile * ((padded(head_dim) + 8) + (padded(value_dim) + 4)) * sizeof(float);
  return tiles + (emulate ? warps * 6 * kWarpSize * sizeof(float) : 0);
}

std::string MmaSdpaParameters::to_string() const {
  return "warps=" + std::to_string(warps) + " key_tile=" + std::to_string(key_tile) +
         " query_split=" + std::to_string(query_split ? 1 : 0) + " prefetch=" + std::to_string(prefetch ? 1 : 0) +
         (emulate ? " emulated" : "");
}

bool has_tf32_tensor_cores(const DeviceLimits& limits) { return limits.nvidia_compute_capability >= 80; }

std::string mma_parameters_problem(const MmaSdpaParameters& parameters, std::size_t head_dim, std::size_t value_dim,
                                   const DeviceLimits& limits) {
  const std::size_t tile = parameters.key_tile;
  if (tile != 8 && tile != 16 && tile != 32 && tile != 64) return "the key tile must be 8, 16, 32 or 64 keys";
  if (parameters.warps < 1 || parameters.warps > 8) return "the warps must be 1 to 8";
  if (parameters.warps * kWarpSize > limits.max_work_group_size) {
    return std::to_string(parameters.warps * kWarpSize) + " work-items, the device takes at most " +
           std::to_string(limits.max_work_group_size);
  }
  const std::size_t bytes = parameters.local_memory_bytes(head_dim, value_dim);
  if (bytes > limits.local_memory_bytes) {
    return "the tiles take " + std::to_string(bytes) + " bytes of local memory, the device has " +
           std::to_string(limits.local_memory_bytes);
  }
  if (!parameters.emulate && !has_tf32_tensor_cores(limits)) {
    return "no TF32 tensor cores that OpenCL can reach (NVIDIA, compute capability 8.0 or later)";
  }
  return "";
}

MmaSdpaParameters default_mma_parameters(std::size_t head_dim, std::size_t value_dim, const DeviceLimits& limits) {
  // What an H200 ran fastest at S = 1024 and 4096 (docs/opencl.md): eight warps, queries split
  // once, tiles prefetched; 64 keys a tile up to 64 dimensions, 16 above (registers, not local
  // memory, are what larger dimensions run out of). Smaller tiles where local memory is short.
  for (const std::size_t key_tile : {64, 32, 16, 8}) {
    if (key_tile > (head_dim <= 64 ? 64u : 16u)) continue;
    const MmaSdpaParameters parameters{8, key_tile, true, true, false};
    if (parameters.local_memory_bytes(head_dim, value_dim) <= limits.local_memory_bytes) return parameters;
  }
  throw std::runtime_error("opencl_mma: a tile of 8 keys and values of dimensions " + std::to_string(head_dim) + " and " +
                           std::to_string(value_dim) + " exceeds the device's local memory (" +
                           std::to_string(limits.local_memory_bytes) + " bytes)");
}

std::vector<MmaSdpaParameters> mma_parameter_candidates(std::size_t head_dim, std::size_t value_dim,
                                                        const DeviceLimits& limits) {
  if (!has_tf32_tensor_cores(limits)) return {};
  std::vector<MmaSdpaParameters> candidates{default_mma_parameters(head_dim, value_dim, limits)};
  for (const std::size_t warps : {8, 4}) {
    for (const std::size_t key_tile : {16, 32, 64}) {
      for (const bool query_split : {true, false}) {
        for (const bool prefetch : {true, false}) {
          const MmaSdpaParameters candidate{warps, key_tile, query_split, prefetch, false};
          if (candidate == candidates.front()) continue;
          if (mma_parameters_problem(candidate, head_dim, value_dim, limits).empty()) candidates.push_back(candidate);
        }
      }
    }
  }
  return candidates;
}

MmaSdpaParameters chosen_mma_parameters(const OpenClRuntime& runtime, const attention::AttentionShape& shape) {
  const std::optional<MmaSdpaParameters> tuned =
      tuned_parameters_of<MmaSdpaParameters>(runtime.device(), shape.head_dim, shape.value_dim);
  if (tuned && mma_parameters_problem(*tuned, shape.head_dim, shape.value_dim, runtime.limits()).empty()) return *tuned;
  return default_mma_parameters(shape.head_dim, shape.value_dim, runtime.limits());
}

std::unique_ptr<PreparedSdpa> prepare_mma_sdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape,
                                               const MmaSdpaParameters& parameters) {
  return std::make_unique<PreparedMmaSdpa>(runtime, shape, parameters);
}

OpenClKernel mma_sdpa_kernel() {
  return OpenClKernel{
      "opencl_mma",
      "FlashAttention-2 on NVIDIA's tensor cores (inline PTX mma.sync, TF32 operands split in two for float32 "
      "accuracy): a work-group per 64 queries, a warp per 16, K/V tiles in local memory",
      runs_on_tensor_cores,
      [](const attention::AttentionShape&) -> std::size_t { return 0; },
      [](OpenClRuntime& runtime, const attention::AttentionShape& shape) -> std::unique_ptr<PreparedSdpa> {
        return prepare_mma_sdpa(runtime, shape, chosen_mma_parameters(runtime, shape));
      },
  };
}

}  // namespace gpu
