#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "tokenizer/rank.hpp"

namespace tokenizer {

class Tokenizer;

// One way of encoding ordinary text. Every registered encoder returns exactly the ids of
// `encode_serial`; they differ only in how they get there.
struct Encoder {
  std::string_view name;
  std::string_view description;
  // Whether this CPU can run it.
  bool (*is_supported)();
  // For an encoder that uses more than the calling thread, the single-threaded encoder whose work
  // it shares out over TBB's threads, so the one its speed-up is measured against; empty for a
  // single-threaded encoder.
  std::string_view single_threaded_counterpart;
  // Appends the ids of `text` (special-token text is ordinary text) to `out`.
  void (*encode)(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out);

  bool multithreaded() const { return !single_threaded_counterpart.empty(); }
};

// Every encoder built into the library, supported or not, simplest first.
std::span<const Encoder> all_encoders();
// Those this CPU supports.
std::vector<const Encoder*> supported_encoders();
// nullptr if no encoder has this name.
const Encoder* find_encoder(std::string_view name);
// The last supported encoder in the registry: the one expected to be fastest.
const Encoder& fastest_encoder();

void encode_serial(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out);
// Runs inline below 128 KiB; above, on all threads of the current TBB arena.
void encode_parallel(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out);
// The serial pipeline with a SIMD pre-tokenizer chosen for this CPU at run time.
void encode_simd(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out);
void encode_simd_parallel(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out);

}  // namespace tokenizer
