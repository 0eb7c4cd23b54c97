// The bfloat16 dot-product peak kernel compiled for AVX512-BF16 (see fma_peak_kernel.inl).
#define BENCHES_FMA_ARCH xsimd::avx512bw
#define BENCHES_FMA_NAMESPACE avx512bf16
#include "fma_peak_kernel.inl"
