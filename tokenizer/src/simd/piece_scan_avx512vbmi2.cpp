// The piece scanners compiled for avx512vbmi2 (see piece_scan_kernel.inl): avx512bw's, but for
// write_starts, which compresses a window's start offsets as bytes.
#define TOKENIZER_SIMD_ARCH xsimd::avx512bw
#define TOKENIZER_SIMD_NAMESPACE avx512vbmi2
#include "piece_scan_kernel.inl"
