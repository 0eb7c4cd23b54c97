// The FMA peak kernel compiled for SSE2, the x86-64 baseline without FMA (see fma_peak_kernel.inl).
#define BENCHES_FMA_ARCH xsimd::sse2
#define BENCHES_FMA_NAMESPACE sse2
#include "fma_peak_kernel.inl"
