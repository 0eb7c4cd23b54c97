#pragma once

#include <cstddef>
#include <functional>
#include <span>

namespace benches {

// The scanners of the pretokenization family, each splitting the long text (bench_inputs.hpp)
// into cl100k_base pieces without BPE:
//   scalar: PreTokenizer::for_each_piece, the hand-written scanner one piece at a time
//   simd:   the SIMD batch scanner the simd encoders use (instruction set: context "simd_isa")
//   regex:  RegexPreTokenizer::piece_ends, ICU running the pattern as written (the reference)
struct PreTokenizationScan {
  const char* name;
  // Builds what the scan needs once (the tokenizer, ICU's compiled pattern) and returns one pass
  // over the text, which returns the number of pieces.
  std::function<std::size_t()> (*prepare)();
};

std::span<const PreTokenizationScan> pretokenization_scans();

}  // namespace benches
