#include "tokenizer/encoder_registry.hpp"

#include <algorithm>
#include <iterator>

namespace tokenizer {

namespace {

bool always() { return true; }

constexpr Encoder kEncoders[] = {
    {"serial", "one thread; hand-written scanner, then BPE per piece", always, "", encode_serial},
    {"parallel", "serial on all TBB threads: long texts cut into chunks, stitched exactly",
     always, "serial", encode_parallel},
    {"simd", "one thread; ASCII classified 64 bytes at a time (AVX-512, AVX2 or SSE2) by a batch scanner",
     always, "", encode_simd},
    {"simd_parallel", "simd on all TBB threads, chunked and stitched as parallel is", always, "simd",
     encode_simd_parallel},
};

}  // namespace

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

const Encoder& fastest_encoder() {
  // The default argument of every encode call: chosen once, not per call.
  static const Encoder& fastest = *supported_encoders().back();
  return fastest;
}

}  // namespace tokenizer
