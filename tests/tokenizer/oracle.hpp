#pragma once

// The reference encoder the randomised tests compare against: pieces from ICU's regex engine
// running the vocabulary's pattern as written, then byte pair encoding done the textbook way.
// It shares nothing with the library's fast path but the rank table's lookup; it is meant to be
// obviously right, not fast.

#include <algorithm>
#include <string_view>
#include <vector>

#include "tokenizer/regex_pretokenizer.hpp"
#include "tokenizer/vocabulary.hpp"

namespace tokenizer::test {

// Starts from single bytes and repeatedly merges the adjacent pair whose concatenation has the
// lowest rank, the leftmost on ties, until no adjacent pair is a token.
inline std::vector<Rank> textbook_bpe(std::string_view piece, const RankTable& ranks) {
  // Part k is piece[bounds[k], bounds[k + 1]); pair_rank[k] is the rank of parts k and k + 1
  // together, kept up to date so each round is one scan instead of a lookup per pair.
  std::vector<std::size_t> bounds;
  for (std::size_t i = 0; i <= piece.size(); ++i) bounds.push_back(i);
  auto rank_of = [&](std::size_t begin, std::size_t end) { return ranks.find(piece.substr(begin, end - begin)); };
  std::vector<Rank> pair_rank;
  for (std::size_t k = 0; k + 2 < bounds.size(); ++k) pair_rank.push_back(rank_of(bounds[k], bounds[k + 2]));
  for (;;) {
    const auto lowest = std::min_element(pair_rank.begin(), pair_rank.end());  // the first of equals
    if (lowest == pair_rank.end() || *lowest == kNoRank) break;
    const auto k = static_cast<std::size_t>(lowest - pair_rank.begin());
    bounds.erase(bounds.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    pair_rank.erase(lowest);
    if (k < pair_rank.size()) pair_rank[k] = rank_of(bounds[k], bounds[k + 2]);
    if (k > 0) pair_rank[k - 1] = rank_of(bounds[k - 1], bounds[k + 1]);
  }
  std::vector<Rank> ids;
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) ids.push_back(rank_of(bounds[k], bounds[k + 1]));
  return ids;
}

class Oracle {
 public:
  explicit Oracle(const Vocabulary& vocabulary) : ranks_(&vocabulary.ranks()), regex_(vocabulary.pattern()) {}

  // What Tokenizer::encode_ordinary must return.
  std::vector<Rank> encode(std::string_view text) const {
    std::vector<Rank> ids;
    std::size_t start = 0;
    for (const std::size_t end : regex_.piece_ends(text)) {
      const std::vector<Rank> piece_ids = textbook_bpe(text.substr(start, end - start), *ranks_);
      ids.insert(ids.end(), piece_ids.begin(), piece_ids.end());
      start = end;
    }
    return ids;
  }

 private:
  const RankTable* ranks_;
  RegexPreTokenizer regex_;
};

}  // namespace tokenizer::test
