// The flash kernels compiled for avx512f (see flash_kernel.inl).
#define ATTENTION_SIMD_ARCH xsimd::avx512f
#define ATTENTION_SIMD_NAMESPACE avx512f
#define ATTENTION_SIMD_BLOCK_ROWS 12
#define ATTENTION_SIMD_KEY_TILE 48
// GCC 12 reports the lanes that AVX-512 intrinsics leave undefined on purpose (_mm512_undefined_*,
// the pass-through operand of an unmasked operation) as used uninitialized wherever
// update_softmax is inlined into a second caller (the decode task): a false positive of its
// intrinsic headers, not of this code.
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "flash_kernel.inl"
