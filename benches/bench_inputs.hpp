#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer.hpp"

namespace benches {

// The fixed inputs of the benchmarks. Texts come from data/corpus (found through
// tokenizer::Vocabulary::data_dir(), so TOKENIZER_DATA_DIR moves them too) or are generated
// here; each is built on first use, so listing the benchmarks costs nothing. scripts/peers
// rebuilds exactly the same bytes for tiktoken: change both together.
//
//   short:  one English sentence of 60 bytes, written here
//   medium: the first 4 KiB of en_shakespeare.txt, cut back to the last whole line (4,070 bytes)
//   long:   all of en_shakespeare.txt (1,115,394 bytes)
std::string_view short_text();
std::string_view medium_text();
std::string_view long_text();

// The six data/corpus/udhr_*.txt files concatenated in sorted name order (arb, cmn_hans, eng,
// hin, jpn, rus), nothing between them: 141,711 bytes in six scripts.
std::string_view multilingual_text();

// Inputs that stress one piece shape, 1 MiB (1,048,576 bytes) each:
//   letters: 'a' repeated, a single pre-tokenizer piece that BPE must merge in one go
//   digits:  '7' repeated, 349,526 pieces of at most three digits
//   spaces:  ' ' repeated, a single whitespace piece
//   base64:  characters of "A-Za-z0-9+/" drawn by std::mt19937 seeded with 1, each picked by
//            the top 6 bits of one 32-bit output (alphabet[gen() >> 26]); no padding or newlines
inline constexpr std::size_t kAdversarialBytes = std::size_t{1} << 20;
std::string_view adversarial_letters();
std::string_view adversarial_digits();
std::string_view adversarial_spaces();
std::string_view adversarial_base64();

// 256 documents cut from en_shakespeare.txt: document i starts at the first line start at or
// after byte i * (corpus size / 256) and holds the longest run of whole lines of at most 4,096
// bytes from there: 4,041 to 4,096 bytes each, 1,043,348 in all. Document 0 is the medium text;
// the documents are disjoint (the stride, 4,357 bytes, exceeds their length).
inline constexpr std::size_t kBatchDocuments = 256;
std::span<const std::string_view> batch_documents();

// One input of the encoding families: the family's name, its text and its encoding.
struct EncodingInput {
  std::string family;
  std::string_view (*text)();
  std::string encoding;
};

// Every encoding family, in the order the benchmarks register them: short_encoding,
// medium_encoding and long_encoding (cl100k_base), the same three with the suffix _o200k
// (o200k_base), multilingual_encoding and adversarial_encoding/{letters,digits,spaces,base64}
// (cl100k_base). build/benches and build/bench_counts name their runs FAMILY/ENCODER.
std::span<const EncodingInput> encoding_inputs();

// `text` cut into `count` consecutive parts that are the whole text together: part i starts at
// the first line start at or after byte i * (text size / count).
std::vector<std::string_view> line_parts(std::string_view text, std::size_t count);

// One shared tokenizer per built-in encoding.
const tokenizer::Tokenizer& tokenizer_for(const std::string& encoding);

}  // namespace benches
