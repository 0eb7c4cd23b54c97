// The bfloat16 flash kernels compiled for amxbf16: on AMX tiles (tile_kernel.inl), with
// flash_kernel.inl's helpers; the float ones of this level are avx512f's.
#include "tile_scope.hpp"
#define ATTENTION_SIMD_ARCH xsimd::avx512bw
#define ATTENTION_SIMD_NAMESPACE amxbf16
#define ATTENTION_SIMD_BLOCK_ROWS 12
#define ATTENTION_SIMD_KEY_TILE 48
#define ATTENTION_SIMD_TILES
#include "flash_kernel.inl"
#include "tile_kernel.inl"
