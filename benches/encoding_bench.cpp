// Encoding of one text at a time: one benchmark per input and encoder of the registry, named
// <family>/<encoder>. bytes_per_second counts input bytes, items_per_second tokens.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench_inputs.hpp"
#include "benches.hpp"
#include "guarded_benchmark.hpp"

namespace benches {

namespace {

void encode_text(benchmark::State& state, const EncodingInput* input, const tokenizer::Encoder* encoder) {
  const tokenizer::Tokenizer& tok = tokenizer_for(input->encoding);
  const std::string_view text = input->text();
  std::vector<tokenizer::Rank> ids;
  for (auto _ : state) {
    ids.clear();
    encoder->encode(tok, text, ids);
    benchmark::DoNotOptimize(ids.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ids.size()));
}

}  // namespace

// FAMILY/ENCODER for every input of encoding_inputs() and every supported encoder. The
// adversarial inputs take up to a few hundred milliseconds an iteration, yet keep the default
// minimum time: a run ends with the first batch of iterations that lasts that long, so a slow
// input costs at most about one iteration more, and a per-benchmark minimum would add
// "/min_time:..." to the names.
void register_encoding_benchmarks() {
  for (const EncodingInput& input : encoding_inputs()) {
    for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders()) {
      auto* bench = register_guarded(input.family + "/" + std::string(encoder->name), encode_text, &input, encoder);
      // Threads make CPU time of the calling thread meaningless: judge multi-threaded encoders by wall time.
      if (encoder->multithreaded()) bench->UseRealTime();
    }
  }
}

}  // namespace benches
