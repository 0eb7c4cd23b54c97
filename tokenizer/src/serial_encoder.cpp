#include "chunked_encoding.hpp"
#include "tokenizer/encoder_registry.hpp"

namespace tokenizer {

// The parallel encoder's chain, run to the end: one loop for both, so that what makes one faster
// or slower does the same to the other, and their ratio measures the threads alone.
void encode_serial(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out) {
  BytePairEncoder bpe(tokenizer);
  chunked::ChainStop never;
  chunked::ScalarChain{tokenizer.pretokenizer()}.encode(text, 0, out, bpe, never);
}

}  // namespace tokenizer
