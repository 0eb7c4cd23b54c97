#pragma once

#include <string>
#include <string_view>

#include "tokenizer/tokenizer.hpp"

namespace benches {

// The fixed inputs of the encoding benchmarks. Texts come from data/corpus (found through
// tokenizer::Vocabulary::data_dir(), so TOKENIZER_DATA_DIR moves them too) and are loaded on
// first use, so listing the benchmarks costs nothing.
//   short:  one English sentence of 60 bytes, written here
//   medium: the first 4 KiB of en_shakespeare.txt, cut back to the last whole line
//   long:   all of en_shakespeare.txt (1,115,394 bytes)
std::string_view short_text();
std::string_view medium_text();
std::string_view long_text();

// One shared tokenizer per built-in encoding.
const tokenizer::Tokenizer& tokenizer_for(const std::string& encoding);

}  // namespace benches
