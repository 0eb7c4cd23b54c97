// calibration/memory_bandwidth: how fast all threads together can read memory (memory_bandwidth.hpp).
#include "memory_bandwidth.hpp"

#include <benchmark/benchmark.h>
#include <tbb/parallel_for.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "benchmark_filter.hpp"
#include "guarded_benchmark.hpp"

namespace benches {

namespace {

constexpr std::size_t kBufferBytes = std::size_t{512} << 20;
// The parallel loop's tasks, each reading a chunk of every stream: enough of them that a thread
// the OS pauses delays its own tasks, not the end of the pass.
constexpr std::size_t kTasks = 64;
constexpr std::size_t kWords = kBufferBytes / sizeof(std::uint64_t);
// A line of 64 bytes.
constexpr std::size_t kLineWords = 8;

// The buffer, written once so that every page is backed by memory of its own (untouched pages of
// a fresh allocation may all map to one page of zeros, which reads from cache).
std::vector<std::uint64_t> make_buffer() {
  std::vector<std::uint64_t> words(kWords);
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = i;
  return words;
}

// One pass over the buffer on TBB's threads, read as `Streams` parts side by side: task c reads
// the c-th chunk of every part, a line of each in turn. Returns its sum so that no load can be
// elided.
template <std::size_t Streams>
std::uint64_t read_pass(const std::vector<std::uint64_t>& words) {
  constexpr std::size_t part_words = kWords / Streams;
  constexpr std::size_t chunk_words = part_words / kTasks;
  static_assert(chunk_words % kLineWords == 0);
  std::vector<std::uint64_t> sums(kTasks);
  tbb::parallel_for(std::size_t{0}, kTasks, [&](std::size_t task) {
    const std::uint64_t* const chunk = words.data() + task * chunk_words;
    // A sum per word of a line, which the compiler keeps in vector registers: the adds keep up
    // with the loads, not with one chain of adds.
    std::uint64_t s[kLineWords] = {};
    for (std::size_t i = 0; i < chunk_words; i += kLineWords)
      for (std::size_t stream = 0; stream < Streams; ++stream)
        for (std::size_t w = 0; w < kLineWords; ++w) s[w] += chunk[stream * part_words + i + w];
    std::uint64_t sum = 0;
    for (const std::uint64_t x : s) sum += x;
    sums[task] = sum;
  });
  std::uint64_t total = 0;
  for (const std::uint64_t s : sums) total += s;
  return total;
}

// The ways of reading the buffer that the calibration tries. Which reads faster depends on the
// core: a core reads memory only as fast as it has lines in flight, and its hardware prefetchers
// decide how many. On the Sapphire Rapids VM eight streams a task read more than one; on the Zen
// 4 VM one reads more than eight (docs/performance-notes.md has the figures). So the machine's
// bound is the faster of the two, measured on each machine.
struct ReadLayout {
  std::size_t streams;
  std::uint64_t (*pass)(const std::vector<std::uint64_t>&);
};
constexpr ReadLayout kLayouts[] = {{1, read_pass<1>}, {8, read_pass<8>}};

struct Calibration {
  double gbps = 0;
  const ReadLayout* layout = &kLayouts[0];
};

// The best of five passes of each layout, the layouts alternating so that both meet the same
// minutes of a machine whose speed moves.
Calibration measure() {
  const std::vector<std::uint64_t> words = make_buffer();
  Calibration best;
  for (int round = 0; round < 5; ++round)
    for (const ReadLayout& layout : kLayouts) {
      const auto start = std::chrono::steady_clock::now();
      benchmark::DoNotOptimize(layout.pass(words));
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double gbps = static_cast<double>(kBufferBytes) / seconds * 1e-9;
      if (gbps > best.gbps) best = {gbps, &layout};
    }
  return best;
}

const Calibration& calibration() {
  static const Calibration measured = measure();
  return measured;
}

void memory_bandwidth_benchmark(benchmark::State& state) {
  const ReadLayout& layout = *calibration().layout;
  const std::vector<std::uint64_t> words = make_buffer();
  for (auto _ : state) benchmark::DoNotOptimize(layout.pass(words));
  state.counters["streams"] = static_cast<double>(layout.streams);
  state.counters["GBps"] =
      benchmark::Counter(static_cast<double>(kBufferBytes) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

std::vector<std::string>& memory_bound_benchmarks() {
  static std::vector<std::string> names{"calibration/memory_bandwidth/real_time"};
  return names;
}

}  // namespace

double memory_bandwidth_gbps() { return calibration().gbps; }

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
  benchmark::AddCustomContext("memory_bandwidth_streams", std::to_string(calibration().layout->streams));
}

}  // namespace benches
