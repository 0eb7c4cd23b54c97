#pragma once

#include <cstdint>
#include <limits>

namespace tokenizer {

// A token id. In tiktoken's format the id of an ordinary token is also its merge priority:
// the lower the rank, the earlier the pair that forms it is merged.
using Rank = std::uint32_t;

inline constexpr Rank kNoRank = std::numeric_limits<Rank>::max();

}  // namespace tokenizer
