#pragma once

#include <string_view>

namespace benches {

// The machine's float32 peak in GFLOP/s (10^9 flops per second, an FMA counting two): chains of
// independent FMAs on the widest vectors this CPU has (AVX-512F, else AVX2 with FMA3, else SSE2
// multiplies and adds), one core's rate times the threads of TBB's default arena, i.e. the
// threads the SDPA implementations use. Measured on the first call (about 0.3 s: the best of
// fifteen runs of about 20 ms on the calling thread, the least disturbed by other processes),
// then cached.
double fma_peak_gflops();

// The instruction set of that measurement: "avx512f", "avx2" or "sse2".
std::string_view fma_peak_isa();

// The bfloat16 peak in GFLOP/s, measured as fma_peak_gflops: chains of vdpbf16ps (two products
// and two additions per float lane) where the library runs its AVX512-BF16 kernels (the CPU has
// them and they pay: attention::simd::best_bf16_flash_isa), else the float peak, as the bfloat16
// kernels then multiply in float. The yardstick of the bfloat16 SDPA benchmarks.
double bf16_peak_gflops();
// "avx512bf16", or fma_peak_isa().
std::string_view bf16_peak_isa();

}  // namespace benches
