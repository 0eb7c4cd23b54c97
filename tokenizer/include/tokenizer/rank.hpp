#pragma once

#include <cstdint>
#include <limits>

namespace tokenizer {

// A token id. In tiktoken's format the id of an ordinary token is also its merge priority:
// the lower the rank, the earlier the pair that forms it is merged.
using Rank = std::uint32_t;

inline constexpr Rank kNoRank = std::numeric_limits<Rank>::max();

// The largest rank a vocabulary may use. Ranks index tables of token spans, so a rank costs
// memory whether or not the ranks below it are used, and RankTable packs ranks into 24 bits:
// 2^24 allows vocabularies far beyond any published one at 128 MiB at most.
inline constexpr Rank kMaxRank = (Rank{1} << 24) - 1;

}  // namespace tokenizer
