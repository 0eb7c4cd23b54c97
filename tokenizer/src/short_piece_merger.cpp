#include "short_piece_merger.hpp"

#include <cstring>

namespace tokenizer {

namespace simd::avx512bw {
std::size_t merge_short(const RankTable& ranks, const std::uint8_t* piece, std::size_t size, Rank* out);
}

namespace {

// The offset and rank of the first lowest of the pairs pair[0 .. Pairs - 1] (Pairs not 0, the
// pairs from size - 1 on kNoRank) or pair[0 .. size - 2] (Pairs 0). Conditional moves, not a
// branch: where the pieces are new words of random letters, which pair is the lowest so far
// follows no pattern a predictor learns.
template <std::size_t Pairs>
[[gnu::always_inline]] inline void lowest_pair(const Rank* pair, std::size_t size, std::size_t& best, Rank& lowest) {
  const std::size_t pairs = Pairs != 0 ? Pairs : size - 1;
  best = 0;
  lowest = pair[0];
#pragma GCC unroll 16
  for (std::size_t i = 1; i < pairs; ++i) {
    const Rank rank = pair[i];
    best = rank < lowest ? i : best;
    lowest = rank < lowest ? rank : lowest;
  }
}

// tiktoken's own loop: each round scans for the lowest-ranked adjacent pair, merges it and
// re-ranks its two neighbouring pairs. O(n^2), all in registers and a cache line or two for the
// short pieces it serves. Parts stay where they started: part i spans [i, next[i]) and a merge
// unlinks the right part instead of shifting the arrays after it (three memmove calls a merge).
// Pairs is 8 or 16 for a piece of at most Pairs + 1 bytes, whose set-up and scans then run a count
// known when compiling, with no loop end for the branch predictor to guess; 0 for a longer one.
template <std::size_t Pairs>
std::size_t merge_tier(const RankTable& ranks, const std::uint8_t* piece, std::size_t size, Rank* out) {
  static_assert(Pairs + 1 <= kMaxShortMerge);
  constexpr std::size_t kMost = kMaxShortMerge;
  if (size < 2) {  // no piece to merge (the precondition is 2 bytes or more): the first scan reads pair[0]
    if (size == 1) out[0] = ranks.byte_rank(piece[0]);
    return size;
  }
  // The piece copied, then 8 zero bytes: every key in it may be read with one load and a mask
  // (find_filtered_padded), where load_head branches on the key's size, which follows no pattern
  // from one merge to the next; and the set-up below may read pairs past the piece's end, up to
  // offset Pairs + 1: within the zeros, for a piece given Pairs has at least Pairs - 6 bytes.
  std::uint8_t data[kMost + 8];
  std::memcpy(data, piece, size);
  std::memset(data + size, 0, 8);
  // For a live part i: part[i] is its rank, prev[i] the previous live part's offset (i > 0), and
  // pair[i] the rank of it and the next part together, kNoRank if that is no token or there is
  // no next part. pair[i] is kNoRank for a merged-away part too, so a scan may run over every
  // offset and still see only live pairs: the first minimum is the leftmost live one. Offsets
  // from size on are set up too where Pairs is not 0, never live.
  std::uint8_t next[kMost];
  std::uint8_t prev[kMost];
  Rank part[kMost];
  Rank pair[kMost];
  static_assert(kMost <= 255, "offsets are bytes");
  const std::size_t offsets = Pairs != 0 ? Pairs + 1 : size;
#pragma GCC unroll 32
  for (std::size_t i = 0; i < offsets; ++i) {
    next[i] = static_cast<std::uint8_t>(i + 1);
    prev[i] = static_cast<std::uint8_t>(i - 1);  // wraps for i == 0; never read there
    part[i] = ranks.byte_rank(data[i]);
    const Rank rank = ranks.find(data + i, 2);
    pair[i] = i + 1 < size ? rank : kNoRank;
  }
  // As in the AVX-512 merge, the two ranks a round looks up stay pending, kNoRank in `pair`,
  // until the next round has taken its lowest: the scan of `pair` then waits on no lookup, only
  // the compare of its result with the two pending ranks does.
  std::size_t least_at;
  Rank least;
  lowest_pair<Pairs>(pair, size, least_at, least);
  // A pending pair that is none sits at kNone, an offset no scan reads.
  constexpr std::size_t kNone = kMost - 1;
  static_assert(Pairs + 1 < kNone);
  Rank right = kNoRank, left = kNoRank;
  std::size_t right_at = kNone, left_at = kNone;
  for (;;) {
    // The first lowest: pending pairs sit at offsets that `pair` holds as kNoRank, so an offset
    // decides a tie between the scan's and a pending one.
    std::size_t best = least_at;
    Rank lowest = least;
    if (right < lowest || (right == lowest && right_at < best)) best = right_at, lowest = right;
    if (left < lowest || (left == lowest && left_at < best)) best = left_at, lowest = left;
    if (lowest == kNoRank) break;
    // Merge part best with the part after it, [next[best], end).
    const std::size_t end = next[next[best]];
    part[best] = lowest;
    pair[right_at] = right;
    pair[left_at] = left;
    pair[next[best]] = kNoRank;
    pair[best] = kNoRank;
    next[best] = static_cast<std::uint8_t>(end);
    if (best > 0) pair[prev[best]] = kNoRank;
    lowest_pair<Pairs>(pair, size, least_at, least);
    right = kNoRank;
    right_at = best;
    if (end < size) {
      prev[end] = static_cast<std::uint8_t>(best);
      right = ranks.find_filtered_padded(data + best, next[end] - best);
    }
    left = kNoRank;
    left_at = best > 0 ? prev[best] : kNone;
    if (best > 0) left = ranks.find_filtered_padded(data + prev[best], end - prev[best]);
  }
  std::size_t count = 0;
  for (std::size_t i = 0; i < size; i = next[i]) out[count++] = part[i];
  return count;
}

constexpr ShortPieceMerger kMergers[] = {
    {isa::Isa::avx512bw, 32, simd::avx512bw::merge_short},
    {isa::Isa::sse2, kMaxShortMerge, merge_short_scalar},
};

}  // namespace

std::size_t merge_short_scalar(const RankTable& ranks, const std::uint8_t* piece, std::size_t size, Rank* out) {
  if (size <= 9) return merge_tier<8>(ranks, piece, size, out);
  if (size <= 17) return merge_tier<16>(ranks, piece, size, out);
  return merge_tier<0>(ranks, piece, size, out);
}

std::span<const ShortPieceMerger> all_short_piece_mergers() { return kMergers; }

const ShortPieceMerger& best_short_piece_merger() {
  static const ShortPieceMerger& best = isa::widest_usable(all_short_piece_mergers());
  return best;
}

}  // namespace tokenizer
