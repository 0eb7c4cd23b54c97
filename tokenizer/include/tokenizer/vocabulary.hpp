#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/rank.hpp"
#include "tokenizer/rank_table.hpp"
#include "tokenizer/vocabulary_types.hpp"

namespace tokenizer {

// Everything that defines an encoding, as tiktoken's `Encoding` does: the ranks of the ordinary
// tokens, the pre-tokenization pattern and the special tokens.
class Vocabulary {
 public:
  // Loads `RANKS` (a .tiktoken file: one `base64(token) rank` per line, ranks increasing) and
  // the spec beside it (same path with extension .json: {"name", "pat_str", "special_tokens"}).
  static Vocabulary load(const std::filesystem::path& ranks_file);
  // Loads a .tiktoken file with the spec given directly.
  static Vocabulary load(const std::filesystem::path& ranks_file, std::string name, std::string pattern,
                         std::vector<SpecialToken> specials);
  // One of the encodings shipped in data/vocab: r50k_base, cl100k_base, o200k_base. The folder
  // is $TOKENIZER_DATA_DIR/vocab if that variable is set, else the source tree's data/vocab.
  static Vocabulary builtin(std::string_view name);
  static std::vector<std::string> builtin_names();
  static std::filesystem::path data_dir();

  const std::string& name() const { return name_; }
  const std::string& pattern() const { return pattern_; }
  const RankTable& ranks() const { return ranks_; }
  const std::vector<SpecialToken>& special_tokens() const { return specials_; }
  const SpecialToken* find_special(std::string_view text) const;

  // Bytes of an ordinary or special token; empty for an id that is neither.
  std::string_view token_bytes(Rank id) const;
  // One past the largest id, special tokens included.
  Rank id_end() const { return id_end_; }

 private:
  // Takes the parsed table: a RankTable of its own, default-constructed and then replaced, would
  // allocate and fill its 257 KiB table of short keys for nothing.
  Vocabulary(std::string name, std::string pattern, RankTable ranks);
  void add_specials(std::vector<SpecialToken> specials, const std::string& origin);

  std::string name_;
  std::string pattern_;
  RankTable ranks_;
  std::vector<SpecialToken> specials_;
  Rank id_end_ = 0;
};

}  // namespace tokenizer
