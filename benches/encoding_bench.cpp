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

using TextFn = std::string_view (*)();

struct NamedText {
  const char* name;
  TextFn text;
};

void encode_text(benchmark::State& state, TextFn input, const tokenizer::Encoder* encoder,
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

// Registers `family/<encoder>` for every supported encoder.
void register_family(const std::string& family, TextFn text, const std::string& encoding) {
  for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders()) {
    const std::string name = family + "/" + std::string(encoder->name);
    auto* bench = register_guarded(name, encode_text, text, encoder, encoding);
    // Threads make CPU time of the calling thread meaningless: judge multi-threaded encoders by wall time.
    if (encoder->multithreaded()) bench->UseRealTime();
  }
}

// {short,medium,long}_encoding<suffix>/<encoder> on `encoding`.
void register_size_grid(const std::string& encoding, const std::string& suffix) {
  static constexpr NamedText inputs[] = {
      {"short_encoding", short_text}, {"medium_encoding", medium_text}, {"long_encoding", long_text}};
  for (const NamedText& input : inputs) register_family(input.name + suffix, input.text, encoding);
}

}  // namespace

void register_encoding_benchmarks() {
  register_size_grid("cl100k_base", "");
  register_size_grid("o200k_base", "_o200k");
  register_family("multilingual_encoding", multilingual_text, "cl100k_base");

  // One iteration of these can take a few hundred milliseconds, yet they keep the default
  // minimum time: a run ends with the first batch of iterations that lasts that long, so a slow
  // input costs at most about one iteration more, and a per-benchmark minimum would add
  // "/min_time:..." to the names.
  static constexpr NamedText adversarial[] = {
      {"letters", adversarial_letters}, {"digits", adversarial_digits},
      {"spaces", adversarial_spaces},   {"base64", adversarial_base64}};
  for (const NamedText& input : adversarial) {
    register_family(std::string("adversarial_encoding/") + input.name, input.text, "cl100k_base");
  }
}

}  // namespace benches
