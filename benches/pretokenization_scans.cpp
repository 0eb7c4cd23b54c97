#include "pretokenization_scans.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "bench_inputs.hpp"
// Internal to the library; the benches' include path names tokenizer/src for this header alone.
#include "simd/piece_batch_scanner.hpp"
#include "tokenizer/regex_pretokenizer.hpp"

namespace benches {

namespace {

const tokenizer::Tokenizer& cl100k() { return tokenizer_for("cl100k_base"); }

std::function<std::size_t()> prepare_scalar() {
  const tokenizer::PreTokenizer* pretokenizer = &cl100k().pretokenizer();
  return [pretokenizer, text = long_text()] {
    std::size_t pieces = 0;
    pretokenizer->for_each_piece(text, [&](std::string_view piece) {
      benchmark::DoNotOptimize(piece.data());
      ++pieces;
    });
    return pieces;
  };
}

std::function<std::size_t()> prepare_simd() {
  const tokenizer::simd::ScanPiecesFn scan =
      tokenizer::simd::best_piece_batch_scanners().for_kind(cl100k().pretokenizer().kind());
  return [scan, text = long_text()] {
    const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
    std::size_t ends[tokenizer::simd::kBatchPieces];
    std::size_t pieces = 0;
    for (std::size_t pos = 0; pos < text.size();) {
      const std::size_t n = scan(data, text.size(), pos, ends, std::size(ends));
      benchmark::DoNotOptimize(ends);
      pieces += n;
      pos = ends[n - 1];
    }
    return pieces;
  };
}

std::function<std::size_t()> prepare_regex() {
  auto regex = std::make_shared<const tokenizer::RegexPreTokenizer>(cl100k().vocabulary().pattern());
  return [regex, text = long_text()] {
    const auto ends = regex->piece_ends(text);
    benchmark::DoNotOptimize(ends.data());
    return ends.size();
  };
}

}  // namespace

std::span<const PreTokenizationScan> pretokenization_scans() {
  static constexpr PreTokenizationScan scans[] = {
      {"scalar", prepare_scalar}, {"simd", prepare_simd}, {"regex", prepare_regex}};
  return scans;
}

}  // namespace benches
