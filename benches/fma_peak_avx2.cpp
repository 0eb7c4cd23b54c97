// The FMA peak kernel compiled for AVX2 with FMA3 (see fma_peak_kernel.inl).
#define BENCHES_FMA_ARCH xsimd::fma3<xsimd::avx2>
#define BENCHES_FMA_NAMESPACE avx2
#include "fma_peak_kernel.inl"
