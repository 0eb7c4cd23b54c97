#pragma once

#include <immintrin.h>

#include <cstdint>

// The AMX tile registers as the amxbf16 kernels use them, for code compiled with AMX-TILE alone
// (flash_kernel_amxbf16.cpp): internal linkage, so that no other translation unit can share them.
namespace attention::simd {

namespace {

// ldtilecfg's 64 bytes: palette 1, and each of the 8 tiles 16 rows of 64 bytes.
struct alignas(64) TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t bytes_per_row[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  std::uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};

// The tiles configured while it lives, and released after, so that a thread between kernel calls
// has no tile state for the OS to save. The process must have Linux's leave to use the tile data
// (isa::cpu_supports(isa::Isa::amxbf16) asks for it), else the configuration faults.
struct TileScope {
  TileScope() {
    static constexpr TileConfig kConfig{};
    _tile_loadconfig(&kConfig);
  }
  ~TileScope() { _tile_release(); }
  TileScope(const TileScope&) = delete;
  TileScope& operator=(const TileScope&) = delete;
};

}  // namespace

}  // namespace attention::simd
