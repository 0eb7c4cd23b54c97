#pragma once

namespace benches {

// Each family registers its benchmarks here; main() calls them all before running.
void register_encoding_benchmarks();       // encoding_bench.cpp: *_encoding*/<encoder>
void register_batch_benchmarks();          // batch_bench.cpp: encode_batch/<encoder>
void register_pretokenization_benchmarks();  // pretokenization_bench.cpp: pretokenization/<scanner>

// Adds the commit, build type, compiler and SIMD instruction set to the benchmark context.
void add_build_context();

}  // namespace benches
