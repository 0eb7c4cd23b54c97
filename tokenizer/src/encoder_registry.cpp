#include "tokenizer/encoder_registry.hpp"

#include <algorithm>
#include <iterator>

#include "tokenizer/byte_pair_encoder.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {

namespace {

bool always() { return true; }

constexpr Encoder kEncoders[] = {
    {"serial", "one thread; hand-written scanner, then BPE per piece", always, false, encode_serial},
    {"parallel", "serial on all TBB threads: long texts cut into chunks, stitched exactly",
     always, true, encode_parallel},
    {"simd", "one thread; ASCII classified 64 bytes at a time (AVX-512, AVX2 or SSE2) by a batch scanner",
     always, false, encode_simd},
    {"simd_parallel", "simd on all TBB threads, chunked and stitched as parallel is", always, true,
     encode_simd_parallel},
};

}  // namespace

void encode_serial(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out) {
  BytePairEncoder bpe(tokenizer.vocabulary().ranks());
  tokenizer.pretokenizer().for_each_piece(text, [&](std::string_view piece) { bpe.encode(piece, out); });
}

std::span<const Encoder> all_encoders() { return kEncoders; }

std::vector<const Encoder*> supported_encoders() {
  std::vector<const Encoder*> out;
  for (const Encoder& e : kEncoders)
    if (e.is_supported()) out.push_back(&e);
  return out;
}

const Encoder* find_encoder(std::string_view name) {
  const auto it = std::find_if(std::begin(kEncoders), std::end(kEncoders), [&](const Encoder& e) { return e.name == name; });
  return it == std::end(kEncoders) ? nullptr : &*it;
}

const Encoder& fastest_encoder() { return *supported_encoders().back(); }

}  // namespace tokenizer
