// pretokenization/<name>: splitting the long text into cl100k_base pieces, without BPE.
//   scalar: PreTokenizer::for_each_piece, the hand-written scanner one piece at a time
//   simd:   the SIMD batch scanner the simd encoders use (instruction set: context "simd_isa")
//   regex:  RegexPreTokenizer::piece_ends, ICU running the pattern as written (the reference)
// bytes_per_second counts input bytes, items_per_second pieces.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "bench_inputs.hpp"
#include "benches.hpp"
#include "guarded_benchmark.hpp"
// Internal to the library; the benches' include path names tokenizer/src for this header alone.
#include "simd/piece_batch_scanner.hpp"

namespace benches {

namespace {

const tokenizer::Tokenizer& cl100k() { return tokenizer_for("cl100k_base"); }

void report(benchmark::State& state, std::size_t bytes, std::size_t pieces) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * pieces));
}

void scan_scalar(benchmark::State& state) {
  const tokenizer::PreTokenizer& pretokenizer = cl100k().pretokenizer();
  const std::string_view text = long_text();
  std::size_t pieces = 0;
  for (auto _ : state) {
    pieces = 0;
    pretokenizer.for_each_piece(text, [&](std::string_view piece) {
      benchmark::DoNotOptimize(piece.data());
      ++pieces;
    });
  }
  report(state, text.size(), pieces);
}

void scan_simd(benchmark::State& state) {
  const tokenizer::simd::ScanPiecesFn scan =
      tokenizer::simd::best_piece_batch_scanners().for_kind(cl100k().pretokenizer().kind());
  const std::string_view text = long_text();
  const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
  std::size_t ends[tokenizer::simd::kBatchPieces];
  std::size_t pieces = 0;
  for (auto _ : state) {
    pieces = 0;
    for (std::size_t pos = 0; pos < text.size();) {
      const std::size_t n = scan(data, text.size(), pos, ends, std::size(ends));
      benchmark::DoNotOptimize(ends);
      pieces += n;
      pos = ends[n - 1];
    }
  }
  report(state, text.size(), pieces);
}

void scan_regex(benchmark::State& state) {
  const tokenizer::RegexPreTokenizer regex(cl100k().vocabulary().pattern());
  const std::string_view text = long_text();
  std::size_t pieces = 0;
  for (auto _ : state) {
    const auto ends = regex.piece_ends(text);
    benchmark::DoNotOptimize(ends.data());
    pieces = ends.size();
  }
  report(state, text.size(), pieces);
}

}  // namespace

void register_pretokenization_benchmarks() {
  register_guarded("pretokenization/scalar", scan_scalar);
  register_guarded("pretokenization/simd", scan_simd);
  // ICU needs about 0.1 s per pass over the long text, so the default minimum time bounds this to
  // a few passes (a per-benchmark minimum would add "/min_time:..." to the name).
  register_guarded("pretokenization/regex", scan_regex);
}

}  // namespace benches
