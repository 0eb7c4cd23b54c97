#include "gpu/tiled_sdpa.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "gpu/opencl_launch.hpp"
#include "gpu/opencl_program.hpp"
#include "gpu/opencl_tuning.hpp"
#include "opencl_kernel_entries.hpp"
#include "sdpa_kernel_arguments.hpp"

namespace gpu {

namespace {

constexpr std::array<std::string_view, 2> kProgramFiles{"sdpa_common.cl", "tiled_sdpa.cl"};

class PreparedTiledSdpa final : public PreparedSdpa {
 public:
  PreparedTiledSdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape,
                    const TiledSdpaParameters& parameters)
      : runtime_(runtime), shape_(shape), parameters_(parameters) {
    const std::string problem =
        tiled_parameters_problem(parameters, shape.head_dim, shape.value_dim, runtime.limits());
    if (!problem.empty()) {
      throw std::invalid_argument("opencl_tiled: " + parameters.to_string() + ": " + problem);
    }
    // Dimensions and blocks are compile-time constants: the blocks live in registers only if every
    // index into them is known when compiling. One program per combination, cached.
    const std::string options = "-DHEAD_DIM=" + std::to_string(shape.head_dim) +
                                " -DVALUE_DIM=" + std::to_string(shape.value_dim) +
                                " -DQUERY_TILE=" + std::to_string(parameters.query_tile) +
                                " -DKEY_TILE=" + std::to_string(parameters.key_tile) +
                                " -DROWS_PER_ITEM=" + std::to_string(parameters.rows_per_item) +
                                " -DCOLUMNS_PER_ITEM=" + std::to_string(parameters.columns_per_item) +
                                " -DSTAGE_QUERIES=" + std::to_string(parameters.stage_queries) +
                                " -DSTAGE_VALUES=" + std::to_string(parameters.stage_values) +
                                " -DPREFETCH=" + std::to_string(parameters.prefetch);
    kernel_ = create_kernel(runtime.program(kProgramFiles, options), "tiled_attention");
  }

  std::vector<Event> enqueue(const DeviceAttentionProblem& problem) override {
    const std::size_t query_tiles = (shape_.seq_q + parameters_.query_tile - 1) / parameters_.query_tile;
    return enqueue_fused_sdpa(runtime_.queue(), kernel_.get(), problem, shape_, query_tiles, parameters_.items());
  }

 private:
  OpenClRuntime& runtime_;
  attention::AttentionShape shape_;
  TiledSdpaParameters parameters_;
  Kernel kernel_;
};

}  // namespace

std::unique_ptr<PreparedSdpa> prepare_tiled_sdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape,
                                                 const TiledSdpaParameters& parameters) {
  return std::make_unique<PreparedTiledSdpa>(runtime, shape, parameters);
}

TiledSdpaParameters chosen_tiled_parameters(const OpenClRuntime& runtime, const attention::AttentionShape& shape) {
  const std::optional<TiledSdpaParameters> tuned =
      tuned_parameters_of<TiledSdpaParameters>(runtime.device(), shape.head_dim, shape.value_dim);
  if (tuned && tiled_parameters_problem(*tuned, shape.head_dim, shape.value_dim, runtime.limits()).empty()) return *tuned;
  return default_tiled_parameters(shape.head_dim, shape.value_dim, runtime.limits(),
                                  (runtime.device().type & CL_DEVICE_TYPE_CPU) != 0);
}

OpenClKernel tiled_sdpa_kernel() {
  return OpenClKernel{
      "opencl_tiled",
      "one fused kernel shaped for GPUs (FlashAttention-2 style): a work-group per query tile, each item a "
      "register block of scores and of outputs, Q and K/V tiles in local memory; tile sizes tuned per device",
      runs_on_any_device,
      [](const attention::AttentionShape&) -> std::size_t { return 0; },
      [](OpenClRuntime& runtime, const attention::AttentionShape& shape) -> std::unique_ptr<PreparedSdpa> {
        return prepare_tiled_sdpa(runtime, shape, chosen_tiled_parameters(runtime, shape));
      },
  };
}

}  // namespace gpu
