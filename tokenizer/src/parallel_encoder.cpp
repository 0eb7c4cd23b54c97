#include "chunked_encoding.hpp"
#include "tokenizer/encoder_registry.hpp"

namespace tokenizer {

void encode_parallel(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out) {
  chunked::encode_in_chunks(tokenizer, text, out, chunked::ScalarChain{tokenizer.pretokenizer()}, encode_serial);
}

}  // namespace tokenizer
