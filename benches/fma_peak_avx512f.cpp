// The FMA peak kernel compiled for AVX-512F (see fma_peak_kernel.inl).
#define BENCHES_FMA_ARCH xsimd::avx512f
#define BENCHES_FMA_NAMESPACE avx512f
#include "fma_peak_kernel.inl"
