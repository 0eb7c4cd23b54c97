// The encoding grid: {short,medium,long}_encoding/<encoder> on cl100k_base, one benchmark per
// encoder of the registry. bytes_per_second counts input bytes, items_per_second tokens.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_inputs.hpp"
#include "benches.hpp"

namespace benches {

namespace {

void encode_text(benchmark::State& state, std::string_view (*input)(), const tokenizer::Encoder* encoder,
                 const std::string& encoding) {
  const tokenizer::Tokenizer& tok = tokenizer_for(encoding);
  const std::string_view text = input();
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

void register_encoding_benchmarks() {
  struct Input {
    const char* family;
    std::string_view (*text)();
  };
  static constexpr Input inputs[] = {
      {"short_encoding", short_text}, {"medium_encoding", medium_text}, {"long_encoding", long_text}};
  for (const Input& input : inputs) {
    for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders()) {
      const std::string name = std::string(input.family) + "/" + std::string(encoder->name);
      auto* bench = benchmark::RegisterBenchmark(name.c_str(), encode_text, input.text, encoder, std::string("cl100k_base"));
      // Threads make CPU time of the calling thread meaningless: judge multi-threaded encoders by wall time.
      if (encoder->multithreaded) bench->UseRealTime();
    }
  }
}

}  // namespace benches
