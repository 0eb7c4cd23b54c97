// calibration/memory_bandwidth: how fast all threads together can read memory (memory_bandwidth.hpp).
#include "memory_bandwidth.hpp"

#include <benchmark/benchmark.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "benchmark_filter.hpp"
#include "guarded_benchmark.hpp"

namespace benches {

namespace {

constexpr std::size_t kBufferBytes = std::size_t{512} << 20;
// The buffer is read as kStreams parts side by side: task c reads the c-th chunk of every part, a
// line of each in turn. A core reads memory only as fast as it has lines in flight, and the
// hardware prefetchers keep more in flight for more streams: one stream a task read about a
// quarter less than eight (docs/performance-notes.md), and decoding, held to this bound, reads two
// (K and V).
constexpr std::size_t kStreams = 8;
// The parallel loop's tasks, each reading a chunk of 1 MiB of every part: enough of them that a
// thread the OS pauses delays its own tasks, not the end of the pass.
constexpr std::size_t kTasks = 64;
constexpr std::size_t kWords = kBufferBytes / sizeof(std::uint64_t);
constexpr std::size_t kPartWords = kWords / kStreams;
constexpr std::size_t kChunkWords = kPartWords / kTasks;
// A line of 64 bytes.
constexpr std::size_t kLineWords = 8;
static_assert(kChunkWords % kLineWords == 0);

// The buffer, written once so that every page is backed by memory of its own (untouched pages of
// a fresh allocation may all map to one page of zeros, which reads from cache).
std::vector<std::uint64_t> make_buffer() {
  std::vector<std::uint64_t> words(kWords);
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = i;
  return words;
}

// One pass over the buffer on TBB's threads; returns its sum so that no load can be elided.
std::uint64_t read_pass(const std::vector<std::uint64_t>& words) {
  std::vector<std::uint64_t> sums(kTasks);
  tbb::parallel_for(std::size_t{0}, kTasks, [&](std::size_t task) {
    const std::uint64_t* const chunk = words.data() + task * kChunkWords;
    // A sum per word of a line, which the compiler keeps in vector registers: the adds keep up
    // with the loads, not with one chain of adds.
    std::uint64_t s[kLineWords] = {};
    for (std::size_t i = 0; i < kChunkWords; i += kLineWords)
      for (std::size_t stream = 0; stream < kStreams; ++stream)
        for (std::size_t w = 0; w < kLineWords; ++w) s[w] += chunk[stream * kPartWords + i + w];
    std::uint64_t sum = 0;
    for (const std::uint64_t x : s) sum += x;
    sums[task] = sum;
  });
  std::uint64_t total = 0;
  for (const std::uint64_t s : sums) total += s;
  return total;
}

double measure_gbps() {
  const std::vector<std::uint64_t> words = make_buffer();
  double best = 0;
  for (int pass = 0; pass < 5; ++pass) {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(read_pass(words));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, static_cast<double>(kBufferBytes) / seconds * 1e-9);
  }
  return best;
}

void memory_bandwidth_benchmark(benchmark::State& state) {
  const std::vector<std::uint64_t> words = make_buffer();
  for (auto _ : state) benchmark::DoNotOptimize(read_pass(words));
  state.counters["GBps"] =
      benchmark::Counter(static_cast<double>(kBufferBytes) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

std::vector<std::string>& memory_bound_benchmarks() {
  static std::vector<std::string> names{"calibration/memory_bandwidth/real_time"};
  return names;
}

}  // namespace

double memory_bandwidth_gbps() {
  static const double gbps = measure_gbps();
  return gbps;
}

void register_memory_bandwidth_benchmark() {
  register_guarded("calibration/memory_bandwidth", memory_bandwidth_benchmark)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

void note_memory_bound_benchmark(std::string name) { memory_bound_benchmarks().push_back(std::move(name)); }

void add_memory_bandwidth_context(std::string_view filter) {
  if (!filter_selects_any(filter, memory_bound_benchmarks())) return;
  char gbps[32];
  std::snprintf(gbps, sizeof gbps, "%.1f", memory_bandwidth_gbps());
  benchmark::AddCustomContext("memory_bandwidth_gbps", gbps);
}

}  // namespace benches
