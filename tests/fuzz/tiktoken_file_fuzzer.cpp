// Any bytes as a .tiktoken file: the loader refuses it with a VocabularyError naming the fault,
// or returns a vocabulary with which every encoder round-trips text (the file's own bytes) and
// agrees with serial, under the regex pre-tokenizer or cl100k's hand-written scanners.
//
// Control byte: bit 0 picks cl100k_base's pattern instead of "\S+|\s+".
#include <optional>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "spec_file.hpp"
#include "tokenizer/encoder_registry.hpp"
#include "tokenizer/tokenizer.hpp"
#include "tokenizer/vocabulary.hpp"

namespace {

constexpr std::size_t kTextLimit = 1024;

// From the spec beside the built-in vocabulary, without loading the vocabulary itself.
const std::string& cl100k_pattern() {
  static const std::string pattern =
      tokenizer::read_spec_file(tokenizer::Vocabulary::data_dir() / "vocab" / "cl100k_base.json").pattern;
  return pattern;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  static const fuzz::ScratchFile file("fuzz.tiktoken");
  const fuzz::SteeredInput input = fuzz::steer(bytes, size);
  const std::string pattern = input.control & 1 ? cl100k_pattern() : R"(\S+|\s+)";
  const std::filesystem::path& path = file.write(input.data);
  std::optional<tokenizer::Tokenizer> tok;
  try {
    tok.emplace(tokenizer::Vocabulary::load(path, "fuzz", pattern, {}));
  } catch (const tokenizer::VocabularyError& error) {
    fuzz::require(std::string(error.what()).starts_with(path.string()),
                  "a refused file is named in the message");
    return 0;
  }
  const std::string_view text = input.data.substr(0, kTextLimit);
  const std::vector<tokenizer::Rank> ids = tok->encode_ordinary(text, *tokenizer::find_encoder("serial"));
  fuzz::require(tok->decode(ids) == text, "decode(encode(b)) == b with a loaded vocabulary");
  for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders())
    fuzz::require(tok->encode_ordinary(text, *encoder) == ids, "every encoder gives serial's ids");
  return 0;
}
