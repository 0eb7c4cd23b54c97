// The bfloat16 flash kernels compiled for avx512bf16 (see flash_kernel.inl); the float ones of
// this level are avx512f's.
#define ATTENTION_SIMD_ARCH xsimd::avx512bw
#define ATTENTION_SIMD_NAMESPACE avx512bf16
#define ATTENTION_SIMD_BLOCK_ROWS 12
// Twice avx512f's tile: bfloat16 rows are half the bytes, and with products twice as fast a
// longer tile spreads each block's output loads, rescaling and stores over more of them
// (measured: docs/sdpa.md, bfloat16).
#define ATTENTION_SIMD_KEY_TILE 96
#include "flash_kernel.inl"
