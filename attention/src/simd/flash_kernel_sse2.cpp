// The flash kernels compiled for sse2 (see flash_kernel.inl).
#define ATTENTION_SIMD_ARCH xsimd::sse2
#define ATTENTION_SIMD_NAMESPACE sse2
#define ATTENTION_SIMD_BLOCK_ROWS 6
#define ATTENTION_SIMD_KEY_TILE 36
#include "flash_kernel.inl"
