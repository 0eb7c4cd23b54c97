#pragma once

#include <cstddef>
#include <memory>
#include <string>

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
  // "warps=8 key_tile=16 query_split=1 prefetch=0", and " emulated" when emulating.
  std::string to_string() const;
};

// Whether the device runs mma.sync with TF32 operands: NVIDIA's compute capability 8.0 or later,
// whose OpenCL compiler takes inline PTX.
bool has_tf32_tensor_cores(const DeviceLimits& limits);

// Eight warps, queries split once, tiles prefetched, and key tiles of 64 keys up to 64 dimensions,
// 16 above, or smaller ones where those do not fit the device's local memory. std::runtime_error
// when not even 8 keys fit.
MmaSdpaParameters default_mma_parameters(std::size_t head_dim, std::size_t value_dim, const DeviceLimits& limits);

// opencl_mma prepared with the given parameters. std::invalid_argument when the key tile is not 8,
// 16, 32 or 64, the warps not 1 to 8, or the tiles exceed the device's local memory; std::runtime_error
// without emulation on a device that has_tf32_tensor_cores() rejects.
std::unique_ptr<PreparedSdpa> prepare_mma_sdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape,
                                               const MmaSdpaParameters& parameters);

}  // namespace gpu
