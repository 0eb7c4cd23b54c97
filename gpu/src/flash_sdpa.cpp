#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "gpu/opencl_launch.hpp"
#include "gpu/opencl_program.hpp"
#include "opencl_kernel_entries.hpp"
#include "sdpa_kernel_arguments.hpp"

namespace gpu {

namespace {

constexpr std::array<std::string_view, 2> kProgramFiles{"sdpa_common.cl", "flash_sdpa.cl"};
constexpr std::size_t kQueryTile = 64;
constexpr std::size_t kMaxKeyTile = 64;

// 8-float rows where the device prefers vectors that wide (AVX on a CPU), 4 elsewhere (128-bit
// loads, the widest most GPUs have).
std::size_t vector_width(const DeviceLimits& limits) { return limits.preferred_float_vector_width >= 8 ? 8 : 4; }

// Key rows per local-memory tile: the most, up to 64, whose K and V tiles take at most half the
// device's local memory (so that two work-groups can share a compute unit); at least 16, so that
// the tile stays a multiple of the vector width.
std::size_t key_tile(const attention::AttentionShape& shape, const DeviceLimits& limits) {
  const std::size_t width = vector_width(limits);
  const std::size_t row_bytes = (round_up(shape.head_dim, width) + round_up(shape.value_dim, width)) * sizeof(float);
  std::size_t keys = kMaxKeyTile;
  while (keys > 16 && keys * row_bytes > limits.local_memory_bytes / 2) keys /= 2;
  if (keys * row_bytes > limits.local_memory_bytes) {
    throw std::runtime_error("opencl_flash: a tile of 16 key and value rows (" + std::to_string(keys * row_bytes) +
                             " bytes) exceeds the device's local memory (" +
                             std::to_string(limits.local_memory_bytes) + " bytes)");
  }
  return keys;
}

class PreparedFlashSdpa final : public PreparedSdpa {
 public:
  PreparedFlashSdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape)
      : runtime_(runtime), shape_(shape), query_tile_(std::min(kQueryTile, runtime.limits().max_work_group_size)) {
    // Dimensions and tiles are compile-time constants of the kernel: private arrays need them, and
    // fixed trip counts let the compiler unroll. One program per combination, cached.
    const std::string options = "-DHEAD_DIM=" + std::to_string(shape.head_dim) +
                                " -DVALUE_DIM=" + std::to_string(shape.value_dim) +
                                " -DQUERY_TILE=" + std::to_string(query_tile_) +
                                " -DKEY_TILE=" + std::to_string(key_tile(shape, runtime.limits())) +
                                " -DVECTOR_WIDTH=" + std::to_string(vector_width(runtime.limits()));
    kernel_ = create_kernel(runtime.program(kProgramFiles, options), "flash_attention");
  }

  std::vector<Event> enqueue(const DeviceAttentionProblem& problem) override {
    const std::size_t query_tiles = (shape_.seq_q + query_tile_ - 1) / query_tile_;
    return enqueue_fused_sdpa(runtime_.queue(), kernel_.get(), problem, shape_, query_tiles, query_tile_);
  }

 private:
  OpenClRuntime& runtime_;
  attention::AttentionShape shape_;
  std::size_t query_tile_;
  Kernel kernel_;
};

}  // namespace

OpenClKernel flash_sdpa_kernel() {
  return OpenClKernel{
      "opencl_flash",
      "one fused kernel, online softmax; a work-group per 64-query tile, one query per item, K/V tiles in local "
      "memory, rows as float4/float8 vectors",
      runs_on_any_device,
      [](const attention::AttentionShape&) -> std::size_t { return 0; },
      [](OpenClRuntime& runtime, const attention::AttentionShape& shape) -> std::unique_ptr<PreparedSdpa> {
        return std::make_unique<PreparedFlashSdpa>(runtime, shape);
      },
  };
}

}  // namespace gpu
