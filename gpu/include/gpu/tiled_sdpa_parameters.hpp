#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpu/opencl_runtime.hpp"

namespace gpu {

// The shape of opencl_tiled's work (gpu/kernels/tiled_sdpa.cl): a work-group per query tile of
// query_tile rows, key tiles of key_tile rows, each work-item a rows_per_item x columns_per_item
// block of the score tile (and the same rows of the output). Compile-time constants of the kernel,
// chosen per device and head dimension by the tuner (sdpa_tune) or default_tiled_parameters().
struct TiledSdpaParameters {
  std::size_t query_tile = 0;
  std::size_t key_tile = 0;
  std::size_t rows_per_item = 0;
  std::size_t columns_per_item = 0;
  // Whether the work-group copies its queries to local memory (1) or each item reads its own from
  // global memory (0), leaving local memory to the key and value tiles.
  std::size_t stage_queries = 1;
  // Whether the work-group copies each value tile to local memory (1) or each item reads its
  // values from global memory through the cache (0; value_dim a multiple of 4).
  std::size_t stage_values = 1;
  // Whether the next key and value tiles are fetched into registers while the current ones are
  // computed on (1), or fetched when needed (0), which leaves those registers to the blocks.
  std::size_t prefetch = 1;

  // Work-items per work-group: (query_tile / rows_per_item) x (key_tile / columns_per_item).
  std::size_t items() const;
  // Output columns per work-item: value_dim over the item columns, rounded up to groups of 4.
  std::size_t value_columns_per_item(std::size_t value_dim) const;
  // Local memory of one work-group, bytes (the layout tiled_sdpa.cl describes).
  std::size_t local_memory_bytes(std::size_t head_dim, std::size_t value_dim) const;
  // "query_tile=64 key_tile=32 rows_per_item=8 columns_per_item=4 stage_queries=1
  // stage_values=1 prefetch=1", as tuning files hold them.
  std::string to_string() const;

  friend bool operator==(const TiledSdpaParameters&, const TiledSdpaParameters&) = default;
};

// Why the kernel cannot run with `parameters` for these dimensions on a device with `limits`
// (tiles not multiples of 4 and of the blocks, blocks of more than 4 not whole groups of 4, flags
// not 0 or 1, too many work-items, too much local memory, more registers than kMaxTiledRegisters
// for the blocks and the prefetched tiles), or "" when it can.
std::string tiled_parameters_problem(const TiledSdpaParameters& parameters, std::size_t head_dim,
                                     std::size_t value_dim, const DeviceLimits& limits);

// The floats one work-item may hold across its loops (score and output blocks, prefetched tiles):
// beyond, the kernel spills on GPUs (255 registers an item on NVIDIA's, some for addresses).
inline constexpr std::size_t kMaxTiledRegisters = 192;

// Every usable combination the tuner sweeps, likeliest first: query tiles of 32 to 128 rows, key
// tiles of 16 to 64, blocks of 1 to 8 rows by 1 to 8 columns with at least 8 products, from 64
// work-items to the device's maximum, queries and values staged or not, tiles prefetched or not.
std::vector<TiledSdpaParameters> tiled_parameter_candidates(std::size_t head_dim, std::size_t value_dim,
                                                            const DeviceLimits& limits);

// Parameters for a device without a tuning file: the first usable of a short list. For GPUs, the
// H100's best first (128 x 16 tiles of 4 x 4 blocks), then smaller. For CPU devices, where
// opencl_cpu is the kernel of choice, small 2 x 2 blocks: PoCL compiles a 4 x 4 block kernel in
// 5-8 s and a 2 x 2 one in about 1. std::runtime_error when none fits (a device with little local
// memory for a large head_dim).
TiledSdpaParameters default_tiled_parameters(std::size_t head_dim, std::size_t value_dim, const DeviceLimits& limits,
                                             bool cpu_device);

}  // namespace gpu
