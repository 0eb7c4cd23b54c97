#pragma once

#include <string>
#include <string_view>

namespace benches {

// The machine's memory bandwidth for reading, in GB/s (10^9 bytes per second): every thread of
// TBB's default arena (the threads the SDPA implementations use) streams its share of a 512 MiB
// buffer, far larger than any last-level cache, adding it up as 64-bit words, each task reading
// one stream or eight side by side, whichever reads faster on this machine (memory_bandwidth.cpp
// says why both). The best of five passes of each, alternating, measured on the first call
// (about a second, the buffer's first touch included), then cached: the yardstick of
// sdpa_decode's bandwidth_fraction. The context names the winning layout
// (memory_bandwidth_streams), and calibration/memory_bandwidth reads that one.
double memory_bandwidth_gbps();

// Registers calibration/memory_bandwidth (GBps: one pass per iteration; streams: the layout).
void register_memory_bandwidth_benchmark();

// Remembers a registered benchmark whose bandwidth_fraction needs memory_bandwidth_gbps(), by the
// name it runs under (with /real_time where it uses real time).
void note_memory_bound_benchmark(std::string name);

// When `filter` (as Google Benchmark's --benchmark_filter) selects calibration/memory_bandwidth
// or a benchmark noted above, measures the bandwidth and adds it to the context as
// memory_bandwidth_gbps and memory_bandwidth_streams; otherwise the 512 MiB are never touched.
void add_memory_bandwidth_context(std::string_view filter);

}  // namespace benches
