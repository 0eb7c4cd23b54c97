// The cold regime's benchmarks (cold_encoding.hpp): FAMILY/ENCODER for every family and encoder.
// Each iteration starts, untimed, from fresh_tokenizer. bytes_per_second counts input bytes,
// items_per_second tokens.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "benches.hpp"
#include "cold_encoding.hpp"
#include "guarded_benchmark.hpp"

namespace benches {

namespace {

void encode_cold_family(benchmark::State& state, const ColdFamily* family, const tokenizer::Encoder* encoder) {
  std::size_t ids = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<tokenizer::Tokenizer> fresh = fresh_tokenizer(family->encoding, *encoder);
    state.ResumeTiming();
    ids = encode_cold(family->workload, *fresh, *encoder);
    benchmark::DoNotOptimize(ids);
    state.PauseTiming();
    fresh.reset();  // its caches' memory is released untimed too
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * cold_input_bytes(family->workload)));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ids));
}

}  // namespace

void register_cold_encoding_benchmarks() {
  for (const ColdFamily& family : cold_families()) {
    for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders()) {
      auto* bench =
          register_guarded(family.name + "/" + std::string(encoder->name), encode_cold_family, &family, encoder);
      // As in the warm families: wall time for what uses more than the calling thread.
      if (encoder->multithreaded() || family.workload == ColdWorkload::batch) bench->UseRealTime();
    }
  }
}

}  // namespace benches
