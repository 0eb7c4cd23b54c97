#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "isa/isa.hpp"
#include "tokenizer/rank.hpp"
#include "tokenizer/rank_table.hpp"

namespace tokenizer {

// Merges a piece of 2 to max_size bytes with tiktoken's rule (BytePairEncoder), writes its ids to
// `out`, which has room for kMaxShortMerge ids whatever the piece's size (a kernel may store that
// many and count only the piece's), and returns how many.
inline constexpr std::size_t kMaxShortMerge = 64;
using MergeShortFn = std::size_t (*)(const RankTable& ranks, const std::uint8_t* piece, std::size_t size, Rank* out);

// One instruction set's merge of short pieces, for pieces of at most max_size bytes.
struct ShortPieceMerger {
  isa::Isa isa;
  std::size_t max_size;
  MergeShortFn merge;
};

// tiktoken's own loop, for pieces of up to kMaxShortMerge bytes: the x86-64 baseline, and every
// other merger's reference.
std::size_t merge_short_scalar(const RankTable& ranks, const std::uint8_t* piece, std::size_t size, Rank* out);

// Every compiled merger, widest first, ending with the baseline's (merge_short_scalar).
std::span<const ShortPieceMerger> all_short_piece_mergers();
// The widest one this CPU supports within TOKBENCH_MAX_ISA (isa::widest_usable), chosen once.
const ShortPieceMerger& best_short_piece_merger();

}  // namespace tokenizer
