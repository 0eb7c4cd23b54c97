// The piece scanners compiled for avx2 (see piece_scan_kernel.inl).
#define TOKENIZER_SIMD_ARCH xsimd::avx2
#define TOKENIZER_SIMD_NAMESPACE avx2
#include "piece_scan_kernel.inl"
