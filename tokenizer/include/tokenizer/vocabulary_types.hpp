#pragma once

#include <stdexcept>
#include <string>

#include "tokenizer/rank.hpp"

namespace tokenizer {

// What the vocabulary and the reader of its spec file share.

// A fault in a vocabulary or spec file; what() names the file, the line and the fault.
class VocabularyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SpecialToken {
  std::string text;
  Rank rank;
};

}  // namespace tokenizer
