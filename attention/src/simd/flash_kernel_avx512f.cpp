// The flash kernels compiled for avx512f (see flash_kernel.inl).
#define ATTENTION_SIMD_ARCH xsimd::avx512f
#define ATTENTION_SIMD_NAMESPACE avx512f
#define ATTENTION_SIMD_BLOCK_ROWS 12
#define ATTENTION_SIMD_KEY_TILE 48
#include "flash_kernel.inl"
