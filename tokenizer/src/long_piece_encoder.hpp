#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "position_bits.hpp"
#include "tokenizer/rank.hpp"
#include "tokenizer/rank_table.hpp"

namespace tokenizer {

// The merge structure of one vocabulary, as LongPieceEncoder needs it. Cheap to construct: the
// tables (splits, pair_merge, a byte trie of the tokens) are derived from the RankTable on first
// use, once, thread-safely, so loading a vocabulary never pays for them. The RankTable must
// outlive the index and stay unchanged. Not movable (it holds a once_flag): own it by pointer.
//
// Terms. BPE(s) is tiktoken's merge loop on the bytes s: start from single bytes, repeatedly
// merge the adjacent pair whose concatenation has the lowest rank (the leftmost on ties) until
// no adjacent pair is a token. A token t is reachable if BPE(bytes(t)) == [t]; its split is the
// pair (left, right) that the last merge of that loop joins. Single bytes are reachable and have
// no split. Whenever BPE joins two parts x and y into a token c, anywhere in any input, then
// (x, y) is the split of c: the parts inside c's bytes have evolved exactly as in BPE(bytes(c)).
// So every merge BPE ever makes is some token's split, and pair_merge knows them all.
class LongPieceIndex {
 public:
  explicit LongPieceIndex(const RankTable& ranks);
  LongPieceIndex(const LongPieceIndex&) = delete;
  LongPieceIndex& operator=(const LongPieceIndex&) = delete;
  ~LongPieceIndex();

  const RankTable& ranks() const { return *ranks_; }

  // Whether a long piece of `size` bytes should take this path now. The tables cost about as
  // much as the merge-queue path spends on a couple of megabytes of long pieces, so they are
  // built only once that much long-piece work has been seen, across all callers; after that,
  // always. Thread-safe.
  bool worth_using(std::size_t size) const {
    if (built_flag_.load(std::memory_order_acquire)) return true;
    return long_bytes_seen_.fetch_add(size, std::memory_order_relaxed) + size >= kBuildAfterBytes;
  }
  static constexpr std::size_t kBuildAfterBytes = 2u << 20;

  // Whether LongPieceEncoder can encode with this vocabulary: every byte is a token, and the
  // vocabulary is monotone (every split part ranks below its token). If not, refusal() says why
  // and the caller keeps to BytePairEncoder. The first call of any member below builds the tables.
  bool usable() const;
  const std::string& refusal() const;
  // Tokens t with a split part of rank >= t.
  std::size_t non_monotone_tokens() const;
  // Tokens of two or more bytes that BPE(bytes(t)) does not end in.
  std::size_t unreachable_tokens() const;

  bool reachable(Rank token) const;
  // The split of a reachable token of two or more bytes; kNoRank for bytes, unreachable tokens
  // and ranks that are no token. Empty (all kNoRank) if some byte has no rank.
  Rank split_left(Rank token) const;
  Rank split_right(Rank token) const;
  // The token whose split is (left, right), or kNoRank. Throws std::logic_error if !usable().
  Rank pair_merge(Rank left, Rank right) const;
  // Whether BPE(bytes(a) + bytes(b)) == [a, b], decided from the merge trees of a and b without
  // running BPE. False if a or b is not reachable. Throws std::logic_error if !usable().
  bool compatible(Rank a, Rank b) const;

 private:
  friend class LongPieceEncoder;
  struct Tables;
  const Tables& tables() const;

  const RankTable* ranks_;
  mutable std::once_flag built_;
  mutable std::unique_ptr<const Tables> tables_;
  mutable std::atomic<bool> built_flag_{false};
  mutable std::atomic<std::size_t> long_bytes_seen_{0};
};

// Encodes a pre-tokenized piece to exactly BPE(piece) — the ranks BytePairEncoder::encode gives,
// whole-token pieces included — in time linear in the piece for the long runs of adversarial
// input (backtracking BPE). Holds scratch space reused across pieces: one per thread; the index
// may be shared.
//
// Why it is exact. A sequence of reachable tokens t1..tk (k >= 2) spelling the piece is
// BPE(piece) if and only if every adjacent pair is compatible; BPE is deterministic, so exactly
// one such sequence exists. The encoder searches for it left to right: at each position it takes
// the longest reachable token that is a prefix of the rest and compatible with the token before,
// trying shorter ones when that fails and backtracking when none is left. The tokens before any
// position it reaches are BPE of the bytes before that position, so whether a position can start
// the rest depends on the position alone: one that failed once is marked dead and never entered
// again. So each position is entered at most once and tries at most one candidate per token
// length: linear in the piece.
class LongPieceEncoder {
 public:
  explicit LongPieceEncoder(const LongPieceIndex& index) : index_(&index) {}

  // Appends BPE(piece) to `out`. Throws std::logic_error if the index is not usable().
  void encode(std::string_view piece, std::vector<Rank>& out);

 private:
  // LongPieceIndex::compatible, remembering recent answers in a direct-mapped cache: the runs
  // that make pieces long repeat few pairs.
  bool compatible(const LongPieceIndex::Tables& tables, Rank a, Rank b);

  const LongPieceIndex* index_;
  // Bit p set: no BPE token boundary at byte offset p of the current piece.
  PositionBits dead_;
  struct RememberedPair {
    std::uint64_t pair;  // a << 32 | b; never a real pair while unused
    bool compatible;
  };
  static constexpr int kRememberedBits = 10;
  std::vector<RememberedPair> remembered_;
};

}  // namespace tokenizer
