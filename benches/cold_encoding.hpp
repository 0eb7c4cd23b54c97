#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "tokenizer/tokenizer.hpp"

namespace benches {

// The cold regime of the encoding benchmarks: a Tokenizer that has not seen the text, so that the
// piece memos and caches (TokenizerOptions) never hide a slower encoder, where every other
// encoding benchmark reuses one Tokenizer and so measures it warm. build/benches times these
// families (cold_encoding_bench.cpp) and build/bench_counts counts their instructions
// (counted_workloads.cpp), both as FAMILY/ENCODER:
//   long_encoding/cold, long_encoding_o200k/cold: the long text, in one call;
//   stream_encoding, stream_encoding_o200k: the batch documents after the first (255, about
//     4 KiB each), one call each in turn;
//   encode_batch/cold: the 256 batch documents in one encode_batch (cl100k_base).
enum class ColdWorkload { long_text, stream, batch };

struct ColdFamily {
  std::string name;
  ColdWorkload workload;
  std::string encoding;
};

// The families above, in that order.
std::span<const ColdFamily> cold_families();

// What each run of a family starts from, untimed and uncounted: a Tokenizer of the encoding's
// vocabulary (tokenizer_for's, shared) with caches of its own, which has encoded only the
// multilingual text, with `encoder`. scripts/peers prepares a peer's fresh object the same way.
std::unique_ptr<tokenizer::Tokenizer> fresh_tokenizer(const std::string& encoding, const tokenizer::Encoder& encoder);

// Encodes the workload's input with `tok` and `encoder`; returns the number of ids.
std::size_t encode_cold(ColdWorkload workload, const tokenizer::Tokenizer& tok, const tokenizer::Encoder& encoder);

// The bytes encode_cold encodes.
std::size_t cold_input_bytes(ColdWorkload workload);

}  // namespace benches
