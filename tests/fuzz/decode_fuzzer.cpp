// Arbitrary id streams, read as tokenize --decode reads them (decimal text or little-endian
// u32), decoded with a built-in encoding: a malformed stream is refused with a message, an
// unknown id with UnknownTokenId naming it and its index, and anything decoded is exactly the
// concatenation of the tokens' bytes.
//
// Control byte: bits 0-1 pick the encoding (modulo their number), bit 2 the u32 format.
#include <stdexcept>
#include <string>
#include <vector>

#include "builtin_encodings.hpp"
#include "fuzz_support.hpp"
#include "id_format.hpp"
#include "tokenizer/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const fuzz::SteeredInput input = fuzz::steer(bytes, size);
  const tokenizer::Tokenizer& tok = fuzz::builtin_encoding(input.control & 3);
  const auto format = input.control & 4 ? tokenizer::cli::IdFormat::u32 : tokenizer::cli::IdFormat::text;
  std::vector<tokenizer::Rank> ids;
  try {
    ids = tokenizer::cli::read_ids(input.data, format);
  } catch (const std::runtime_error& error) {
    fuzz::require(std::string(error.what()).size() > 0, "a malformed id stream has a message");
    return 0;
  }
  if (format == tokenizer::cli::IdFormat::u32) fuzz::require(ids.size() * 4 == input.data.size(), "4 bytes per u32 id");

  std::string expected;
  std::size_t first_unknown = ids.size();
  for (std::size_t i = 0; i < ids.size() && first_unknown == ids.size(); ++i) {
    const std::string_view token = tok.vocabulary().token_bytes(ids[i]);
    if (token.empty()) first_unknown = i;
    expected += token;
  }
  try {
    const std::string text = tok.decode(ids);
    fuzz::require(first_unknown == ids.size(), "an unknown id is refused");
    fuzz::require(text == expected, "decode concatenates the tokens' bytes");
  } catch (const tokenizer::UnknownTokenId& error) {
    fuzz::require(error.index() == first_unknown && error.id() == ids[first_unknown],
                  "UnknownTokenId names the first unknown id and its index");
  }
  return 0;
}
