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

namespace simd::avx512bw {
// The AVX-512 merge asks, before merging a piece of up to 16 bytes, for the lines of the rank
// table that its lookups would read: the filter word and the first slot of every key of 3 to
// kMaxKeyLineBytes bytes in it, short of the whole piece (RankTable::key_lines_padded), ordered by
// length and then by offset. short_piece_key_lines writes those addresses for a piece of 2 to 16
// bytes and returns their number; a test compares them with key_lines_padded's, the scalar
// definition.
inline constexpr std::size_t kMaxKeyLineBytes = 8;
struct KeyLineAddresses {
  // The keys of a piece of 16 bytes (69: 14 + 13 + ... + 9), and room for a vector stored whole
  // past them.
  static constexpr std::size_t kRoom = [] {
    std::size_t keys = 0;
    for (std::size_t length = 3; length <= kMaxKeyLineBytes; ++length) keys += 16 - length + 1;
    return keys + 8;
  }();
  std::uintptr_t filter_words[kRoom];
  std::uintptr_t slots[kRoom];
};
std::size_t short_piece_key_lines(const RankTable& ranks, const std::uint8_t* piece, std::size_t size,
                                  KeyLineAddresses& lines);
}  // namespace simd::avx512bw

// Every compiled merger, widest first, ending with the baseline's (merge_short_scalar).
std::span<const ShortPieceMerger> all_short_piece_mergers();
// The widest one this CPU supports within TOKBENCH_MAX_ISA (isa::widest_usable), chosen once.
const ShortPieceMerger& best_short_piece_merger();

}  // namespace tokenizer
