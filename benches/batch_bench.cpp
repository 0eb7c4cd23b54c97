// encode_batch/<encoder>: Tokenizer::encode_batch over the 256 batch documents on cl100k_base,
// one benchmark per encoder of the registry. encode_batch spreads the documents over TBB's
// threads whatever the encoder, so every one is judged by wall time. bytes_per_second counts
// the bytes of all documents, items_per_second their tokens.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "bench_inputs.hpp"
#include "benches.hpp"
#include "guarded_benchmark.hpp"

namespace benches {

namespace {

void encode_batch(benchmark::State& state, const tokenizer::Encoder* encoder) {
  const tokenizer::Tokenizer& tok = tokenizer_for("cl100k_base");
  const auto documents = batch_documents();
  std::size_t bytes = 0;
  for (const std::string_view document : documents) bytes += document.size();
  std::size_t tokens = 0;
  for (const auto& ids : tok.encode_batch(documents, *encoder)) tokens += ids.size();
  for (auto _ : state) {
    const auto ids = tok.encode_batch(documents, *encoder);
    benchmark::DoNotOptimize(ids.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * tokens));
}

}  // namespace

void register_batch_benchmarks() {
  for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders()) {
    const std::string name = "encode_batch/" + std::string(encoder->name);
    register_guarded(name, encode_batch, encoder)->UseRealTime();
  }
}

}  // namespace benches
