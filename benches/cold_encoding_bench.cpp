// Encoding by a Tokenizer that has not seen the text, so that the piece cache
// (TokenizerOptions) never hides a slower encoder: the other encoding benchmarks reuse one
// Tokenizer and so measure it warm.
//   long_encoding/cold/<encoder>, long_encoding_o200k/cold/<encoder>: the long text, in one call;
//   stream_encoding/<encoder>, stream_encoding_o200k/<encoder>: the batch documents after the
//     first (255, about 4 KiB each), one call each in turn;
//   encode_batch/cold/<encoder>: the 256 batch documents in one encode_batch (cl100k_base).
// Each iteration starts, untimed, with a Tokenizer of the same vocabulary and an empty cache of
// its own, which then encodes the multilingual text, also untimed: scripts/peers prepares a
// peer's fresh object the same way. bytes_per_second counts input bytes, items_per_second tokens.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench_inputs.hpp"
#include "benches.hpp"
#include "guarded_benchmark.hpp"

namespace benches {

namespace {

// What one iteration encodes, given a fresh tokenizer; returns the number of ids.
enum class Workload { long_text, stream, batch };

std::size_t run(Workload workload, const tokenizer::Tokenizer& tok, const tokenizer::Encoder& encoder) {
  switch (workload) {
    case Workload::long_text: return tok.encode_ordinary(long_text(), encoder).size();
    case Workload::stream: {
      std::size_t ids = 0;
      for (const std::string_view document : batch_documents().subspan(1)) ids += tok.encode_ordinary(document, encoder).size();
      return ids;
    }
    case Workload::batch: {
      std::size_t ids = 0;
      for (const auto& document_ids : tok.encode_batch(batch_documents(), encoder)) ids += document_ids.size();
      return ids;
    }
  }
  return 0;
}

std::size_t input_bytes(Workload workload) {
  if (workload == Workload::long_text) return long_text().size();
  std::size_t bytes = 0;
  for (const std::string_view document : batch_documents().subspan(workload == Workload::stream ? 1 : 0)) bytes += document.size();
  return bytes;
}

void encode_cold(benchmark::State& state, Workload workload, const std::string* encoding, const tokenizer::Encoder* encoder) {
  const tokenizer::Tokenizer& shared = tokenizer_for(*encoding);
  std::size_t ids = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::optional<tokenizer::Tokenizer> fresh;
    fresh.emplace(shared, tokenizer::TokenizerOptions{});
    benchmark::DoNotOptimize(fresh->encode_ordinary(multilingual_text(), *encoder).data());
    state.ResumeTiming();
    ids = run(workload, *fresh, *encoder);
    benchmark::DoNotOptimize(ids);
    state.PauseTiming();
    fresh.reset();  // its cache's memory is released untimed too
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * input_bytes(workload)));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ids));
}

}  // namespace

void register_cold_encoding_benchmarks() {
  static const std::string cl100k = "cl100k_base", o200k = "o200k_base";
  struct Family {
    std::string name;
    Workload workload;
    const std::string* encoding;
  };
  static const Family families[] = {
      {"long_encoding/cold", Workload::long_text, &cl100k},   {"long_encoding_o200k/cold", Workload::long_text, &o200k},
      {"stream_encoding", Workload::stream, &cl100k},         {"stream_encoding_o200k", Workload::stream, &o200k},
      {"encode_batch/cold", Workload::batch, &cl100k},
  };
  for (const Family& family : families) {
    for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders()) {
      auto* bench = register_guarded(family.name + "/" + std::string(encoder->name), encode_cold, family.workload,
                                     family.encoding, encoder);
      // As in the warm families: wall time for what uses more than the calling thread.
      if (encoder->multithreaded() || family.workload == Workload::batch) bench->UseRealTime();
    }
  }
}

}  // namespace benches
