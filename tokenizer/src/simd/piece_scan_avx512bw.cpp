// The piece scanners compiled for avx512bw (see piece_scan_kernel.inl).
#define TOKENIZER_SIMD_ARCH xsimd::avx512bw
#define TOKENIZER_SIMD_NAMESPACE avx512bw
#include "piece_scan_kernel.inl"
