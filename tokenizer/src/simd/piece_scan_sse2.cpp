// The piece scanners compiled for sse2 (see piece_scan_kernel.inl).
#define TOKENIZER_SIMD_ARCH xsimd::sse2
#define TOKENIZER_SIMD_NAMESPACE sse2
#include "piece_scan_kernel.inl"
