#include "tokenizer/byte_pair_encoder.hpp"
#include "tokenizer/encoder_registry.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {

void encode_serial(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out) {
  BytePairEncoder bpe(tokenizer);
  tokenizer.pretokenizer().for_each_piece(text, [&](std::string_view piece) { bpe.encode(piece, out); });
}

}  // namespace tokenizer
