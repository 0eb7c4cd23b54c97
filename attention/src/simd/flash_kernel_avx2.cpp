// The flash kernels compiled for avx2 (see flash_kernel.inl).
#define ATTENTION_SIMD_ARCH xsimd::fma3<xsimd::avx2>
#define ATTENTION_SIMD_NAMESPACE avx2
#define ATTENTION_SIMD_BLOCK_ROWS 6
#define ATTENTION_SIMD_KEY_TILE 36
#include "flash_kernel.inl"
