// Any bytes as the .json spec beside a .tiktoken file: parse_spec_file returns the name, the
// pattern and the special tokens, or throws a VocabularyError naming the origin; no input
// crashes it, however deep its nesting.
//
// libFuzzer's default length cap (4 KiB) hid a stack overflow at 100,000 levels, so inputs are
// expanded first: "\x01 N0 N1 N2 L S" (S of L bytes) stands for S repeated N0 + 256 N1 + 65536 N2
// times, the whole expansion capped at 256 KiB: more than twice the nesting that overflowed, and
// small enough that a sanitized parse stays fast (docs/hostile-input.md). The seed corpus holds
// deeply nested specs written that way.
#include <algorithm>
#include <string>

#include "fuzz_support.hpp"
#include "spec_file.hpp"

namespace {

constexpr std::size_t kMaxExpansion = std::size_t{256} << 10;

// Appends `count` copies of `unit` to `out`, as many as fit under the cap: by doubling what is
// already written, a few appends rather than one a copy (one a copy, under the sanitizers'
// instrumentation, was half of the target's time).
void append_copies(std::string& out, std::string_view unit, std::size_t count) {
  if (unit.empty()) return;
  const std::size_t room = out.size() < kMaxExpansion ? kMaxExpansion - out.size() : 0;
  const std::size_t bytes = std::min(count, room / unit.size()) * unit.size();
  if (bytes == 0) return;
  const std::size_t start = out.size();
  out.reserve(start + bytes);
  out += unit;
  // The source lies within `out`; with the capacity reserved, appending moves nothing.
  while (out.size() - start < bytes) {
    const std::size_t written = out.size() - start;
    out.append(out.data() + start, std::min(written, bytes - written));
  }
}

std::string expand(std::string_view data) {
  std::string out;
  const auto byte = [&](std::size_t at) { return static_cast<std::size_t>(static_cast<std::uint8_t>(data[at])); };
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '\x01' && i + 4 < data.size() && i + 5 + byte(i + 4) <= data.size()) {
      const std::size_t count = byte(i + 1) + 256 * byte(i + 2) + 65536 * byte(i + 3);
      const std::string_view unit = data.substr(i + 5, byte(i + 4));
      append_copies(out, unit, count);
      i += 4 + unit.size();
    } else {
      out += data[i];
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string text = expand(std::string_view(reinterpret_cast<const char*>(bytes), size));
  try {
    const tokenizer::SpecFile spec = tokenizer::parse_spec_file(text, "fuzz.json");
    for (const tokenizer::SpecialToken& special : spec.specials)
      fuzz::require(special.rank < tokenizer::kNoRank, "a special token's id is a rank");
  } catch (const tokenizer::VocabularyError& error) {
    fuzz::require(std::string(error.what()).starts_with("fuzz.json"), "a refused spec is named in the message");
  }
  return 0;
}
