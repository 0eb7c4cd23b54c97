#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention_problem.hpp"
#include "gpu/opencl_kernel.hpp"
#include "gpu/opencl_runtime.hpp"

namespace gpu {

// The shape of opencl_mma's work (gpu/kernels/mma_sdpa.cl): a work-group of `warps` warps, 16
// query rows each, sharing tiles of key_tile keys and values in local memory.
struct MmaSdpaParameters {
  std::size_t warps = 8;
  std::size_t key_tile = 16;
  // Whether each item keeps its queries' TF32 halves in registers (2 per float), or the queries,
  // split again for every key tile: fewer registers, more instructions.
  bool query_split = true;
  // Whether the next key and value tiles are fetched into registers while the current ones are
  // computed on.
  bool prefetch = false;
  // Whether the work-items compute the warp-level instructions themselves (exchanging fragments
  // through local memory), on any device: what tests the kernel's indexing on PoCL.
  bool emulate = false;

  // Local memory of one work-group, bytes.
  std::size_t local_memory_bytes(std::size_t head_dim, std::size_t value_dim) const;
  // "warps=8 key_tile=16 query_split=1 prefetch=0", as tuning files hold them, and " emulated"
  // when emulating.
  std::string to_string() const;

  friend bool operator==(const MmaSdpaParameters&, const MmaSdpaParameters&) = default;
};

// Whether the device runs mma.sync with TF32 operands: NVIDIA's compute capability 8.0 or later,
// whose OpenCL compiler takes inline PTX.
bool has_tf32_tensor_cores(const DeviceLimits& limits);

// Eight warps, queries split once, tiles prefetched, and key tiles of 64 keys up to 64 dimensions,
// 16 above, or smaller ones where those do not fit the device's local memory. std::runtime_error
// when not even 8 keys fit.
MmaSdpaParameters default_mma_parameters(std::size_t head_dim, std::size_t value_dim, const DeviceLimits& limits);

// Why the kernel cannot run with `parameters` for these dimensions on a device with `limits` (a
// key tile not 8, 16, 32 or 64 keys, warps not 1 to 8, more work-items than the device takes,
// tiles beyond its local memory, no tensor cores without emulation), or "" when it can.
std::string mma_parameters_problem(const MmaSdpaParameters& parameters, std::size_t head_dim, std::size_t value_dim,
                                   const DeviceLimits& limits);

// Every usable combination the tuner sweeps, the default first: 4 or 8 warps, key tiles of 16 to
// 64, queries split once or per tile, tiles prefetched or not; none without tensor cores.
std::vector<MmaSdpaParameters> mma_parameter_candidates(std::size_t head_dim, std::size_t value_dim,
                                                        const DeviceLimits& limits);

// The parameters opencl_mma uses for `shape` on the runtime's device: its tuning file's entry
// (opencl_tuning.hpp), else default_mma_parameters().
MmaSdpaParameters chosen_mma_parameters(const OpenClRuntime& runtime, const attention::AttentionShape& shape);

// opencl_mma prepared with the given parameters. std::invalid_argument when mma_parameters_problem()
// objects to them.
std::unique_ptr<PreparedSdpa> prepare_mma_sdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape,
                                               const MmaSdpaParameters& parameters);

}  // namespace gpu
