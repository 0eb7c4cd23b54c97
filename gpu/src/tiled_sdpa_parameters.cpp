#include "gpu/tiled_sdpa_parameters.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <stdexcept>

#include "gpu/opencl_launch.hpp"

namespace gpu {

namespace {

constexpr std::size_t kGroup = 4;  // GROUP of tiled_sdpa.cl

// A block of n rows or columns is n consecutive ones (n < 4) or whole groups of 4.
constexpr bool whole_groups(std::size_t block) { return block < kGroup ? block > 0 : block % kGroup == 0; }

}  // namespace

std::size_t TiledSdpaParameters::items() const {
  return (query_tile / rows_per_item) * (key_tile / columns_per_item);
}

std::size_t TiledSdpaParameters::value_columns_per_item(std::size_t value_dim) const {
  const std::size_t item_columns = key_tile / columns_per_item;
  return round_up(value_dim, item_columns * kGroup) / item_columns;
}

std::size_t TiledSdpaParameters::local_memory_bytes(std::size_t head_dim, std::size_t value_dim) const {
  const std::size_t item_columns = key_tile / columns_per_item;
  const std::size_t weight_stride = query_tile + 4;
  const std::size_t floats = stage_queries * head_dim * query_tile + std::max(head_dim * key_tile, key_tile * weight_stride) +
                             stage_values * key_tile * value_columns_per_item(value_dim) * item_columns +
                             item_columns * query_tile;
  return floats * sizeof(float);
}

std::string TiledSdpaParameters::to_string() const {
  return "query_tile=" + std::to_string(query_tile) + " key_tile=" + std::to_string(key_tile) +
         " rows_per_item=" + std::to_string(rows_per_item) + " columns_per_item=" + std::to_string(columns_per_item) +
         " stage_queries=" + std::to_string(stage_queries) + " stage_values=" + std::to_string(stage_values) +
         " prefetch=" + std::to_string(prefetch);
}

std::string tiled_parameters_problem(const TiledSdpaParameters& p, std::size_t head_dim, std::size_t value_dim,
                                     const DeviceLimits& limits) {
  if (!whole_groups(p.rows_per_item) || !whole_groups(p.columns_per_item)) {
    return "rows_per_item and columns_per_item must be 1, 2, 3 or a multiple of 4";
  }
  if (p.stage_queries > 1 || p.stage_values > 1 || p.prefetch > 1) {
    return "stage_queries, stage_values and prefetch must be 0 or 1";
  }
  if (!p.stage_values && value_dim % kGroup != 0) return "stage_values=0 needs a value_dim that is a multiple of 4";
  if (p.query_tile == 0 || p.query_tile % p.rows_per_item != 0 || p.query_tile % kGroup != 0 || p.key_tile == 0 ||
      p.key_tile % p.columns_per_item != 0 || p.key_tile % kGroup != 0) {
    return "query_tile and key_tile must be positive multiples of 4 and of rows_per_item and columns_per_item";
  }
  if (p.items() > limits.max_work_group_size) {
    return std::to_string(p.items()) + " work-items, the device allows " + std::to_string(limits.max_work_group_size);
  }
  const std::size_t bytes = p.local_memory_bytes(head_dim, value_dim);
  if (bytes > limits.local_memory_bytes) {
    return std::to_string(bytes) + " bytes of local memory, the device has " + std::to_string(limits.local_memory_bytes);
  }
  const std::size_t blocks = p.rows_per_item * (p.columns_per_item + p.value_columns_per_item(value_dim));
  const std::size_t tile_floats =
      p.key_tile * (head_dim + p.stage_values * p.value_columns_per_item(value_dim) * (p.key_tile / p.columns_per_item));
  const std::size_t registers = blocks + (p.prefetch ? (tile_floats + p.items() - 1) / p.items() : 0);
  if (registers > kMaxTiledRegisters) {
    return std::to_string(registers) + " floats held per work-item, more than " + std::to_string(kMaxTiledRegisters);
  }
  return "";
}

std::vector<TiledSdpaParameters> tiled_parameter_candidates(std::size_t head_dim, std::size_t value_dim,
                                                            const DeviceLimits& limits) {
  std::vector<TiledSdpaParameters> candidates;
  // The likeliest first (the winners on an H100: long query tiles, short key tiles, 4 x 4 blocks),
  // for a tuner short of time.
  for (const std::size_t query_tile : {128, 64, 32}) {
    for (const std::size_t key_tile : {16, 32, 64}) {
      for (const std::size_t rows : {4, 8, 2, 1}) {
        for (const std::size_t columns : {4, 8, 2, 1}) {
          for (const std::size_t flags : {7, 6, 5, 4, 3, 2, 1, 0}) {
            const TiledSdpaParameters candidate{query_tile, key_tile, rows, columns, flags >> 2 & 1, flags >> 1 & 1,
                                                flags & 1};
            // Blocks of fewer than 8 products, or work-groups of under 64 items, leave a GPU's FMA
            // units waiting on local memory.
            if (rows * columns < 8 || candidate.items() < 64) continue;
            if (tiled_parameters_problem(candidate, head_dim, value_dim, limits).empty()) {
              candidates.push_back(candidate);
            }
          }
        }
      }
    }
  }
  return candidates;
}

TiledSdpaParameters default_tiled_parameters(std::size_t head_dim, std::size_t value_dim, const DeviceLimits& limits,
                                             bool cpu_device) {
  static constexpr std::array<TiledSdpaParameters, 8> kGpuPreferred{{
      {128, 16, 4, 4, 1, 1, 1}, {64, 32, 4, 4, 1, 1, 1}, {64, 32, 4, 4, 0, 1, 0}, {32, 32, 4, 4, 1, 1, 0},
      {32, 16, 4, 2, 1, 1, 0}, {16, 16, 4, 4, 1, 1, 0}, {16, 16, 2, 2, 1, 1, 0}, {16, 8, 2, 1, 1, 1, 0}}};
  static constexpr std::array<TiledSdpaParameters, 2> kCpuPreferred{{{32, 16, 2, 2, 1, 1, 0}, {16, 8, 2, 1, 1, 1, 0}}};
  const std::span<const TiledSdpaParameters> preferred =
      cpu_device ? std::span<const TiledSdpaParameters>(kCpuPreferred) : std::span<const TiledSdpaParameters>(kGpuPreferred);
  for (const TiledSdpaParameters& parameters : preferred) {
    if (tiled_parameters_problem(parameters, head_dim, value_dim, limits).empty()) return parameters;
  }
  const TiledSdpaParameters& smallest = preferred.back();
  throw std::runtime_error("opencl_tiled: no tile shape fits the device for head_dim " + std::to_string(head_dim) +
                           ", value_dim " + std::to_string(value_dim) + " (the smallest: " +
                           tiled_parameters_problem(smallest, head_dim, value_dim, limits) + ")");
}

}  // namespace gpu
