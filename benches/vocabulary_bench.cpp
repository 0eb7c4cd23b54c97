// vocabulary_load/<encoding>: reading a built-in vocabulary (Vocabulary::builtin: the .tiktoken
// ranks, the spec beside them, the rank table built), items_per_second counting tokens.
// decode/long_encoding: Tokenizer::decode of the cl100k_base ids of the long text,
// bytes_per_second counting the bytes written.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench_inputs.hpp"
#include "benches.hpp"
#include "guarded_benchmark.hpp"

namespace benches {

namespace {

void load_vocabulary(benchmark::State& state, const std::string& name) {
  std::size_t tokens = 0;
  for (auto _ : state) {
    const tokenizer::Vocabulary vocabulary = tokenizer::Vocabulary::builtin(name);
    tokens = vocabulary.id_end();
    benchmark::DoNotOptimize(&vocabulary);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * tokens));
}

void decode_long(benchmark::State& state) {
  const tokenizer::Tokenizer& tok = tokenizer_for("cl100k_base");
  const std::vector<tokenizer::Rank> ids = tok.encode_ordinary(long_text());
  for (auto _ : state) {
    const std::string text = tok.decode(ids);
    benchmark::DoNotOptimize(text.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * long_text().size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ids.size()));
}

}  // namespace

void register_vocabulary_benchmarks() {
  for (const std::string& name : tokenizer::Vocabulary::builtin_names())
    register_guarded("vocabulary_load/" + name, load_vocabulary, name);
  register_guarded("decode/long_encoding", decode_long);
}

}  // namespace benches
