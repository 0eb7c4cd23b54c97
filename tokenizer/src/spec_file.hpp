#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tokenizer/vocabulary_types.hpp"

namespace tokenizer {

// The JSON that accompanies a .tiktoken file:
//   {"name": "...", "pat_str": "...", "special_tokens": {"<|text|>": id, ...}}
// Other keys are ignored. Throws VocabularyError naming the file, line and fault.
struct SpecFile {
  std::string name;
  std::string pattern;
  std::vector<SpecialToken> specials;
};

SpecFile read_spec_file(const std::filesystem::path& path);

// The same from a spec file's text; `origin` names it in error messages.
SpecFile parse_spec_file(std::string text, std::string origin);

}  // namespace tokenizer
