#pragma once

#include <memory>

#include "attention/attention_problem.hpp"
#include "gpu/opencl_kernel.hpp"
#include "gpu/opencl_runtime.hpp"
#include "gpu/tiled_sdpa_parameters.hpp"

namespace gpu {

// opencl_tiled prepared with the given parameters rather than the device's tuned ones: what the
// tuner times. std::invalid_argument when tiled_parameters_problem() objects to them.
std::unique_ptr<PreparedSdpa> prepare_tiled_sdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape,
                                                 const TiledSdpaParameters& parameters);

// The parameters opencl_tiled uses for `shape` on the runtime's device: its tuning file's entry
// (opencl_tuning.hpp), else default_tiled_parameters().
TiledSdpaParameters chosen_tiled_parameters(const OpenClRuntime& runtime, const attention::AttentionShape& shape);

}  // namespace gpu
