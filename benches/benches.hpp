#pragma once

#include <string_view>

namespace benches {

// Each family registers its benchmarks here; main() calls them all before running.
void register_encoding_benchmarks();       // encoding_bench.cpp: *_encoding*/<encoder>
void register_batch_benchmarks();          // batch_bench.cpp: encode_batch/<encoder>
void register_cold_encoding_benchmarks();  // cold_encoding_bench.cpp: */cold/<encoder>, stream_encoding*/<encoder>
void register_pretokenization_benchmarks();  // pretokenization_bench.cpp: pretokenization/<scanner>
void register_vocabulary_benchmarks();     // vocabulary_bench.cpp: vocabulary_load/<encoding>, decode/...
void register_calibration_benchmarks();    // fma_peak.cpp: calibration/fma_peak
void register_sdpa_benchmarks();           // sdpa_bench.cpp: sdpa/<implementation>/batch:...
void register_sdpa_decode_benchmarks();    // sdpa_decode_bench.cpp: sdpa_decode/<implementation>/batch:...
void register_opencl_sdpa_benchmarks();    // opencl_sdpa_bench.cpp: sdpa/opencl_*/batch:...

// Adds the commit, build type, compiler and SIMD instruction set to the benchmark context.
void add_build_context();
// Measures the FMA peak (fma_peak.hpp) and adds it to the benchmark context: fma_peak_gflops,
// fma_peak_isa, fma_peak_threads.
void add_fma_peak_context();
// The OpenCL device's FMA peak and memory bandwidth, when the filter selects an OpenCL benchmark
// (opencl_calibration.hpp).
void add_opencl_calibration_context(std::string_view filter);

}  // namespace benches
