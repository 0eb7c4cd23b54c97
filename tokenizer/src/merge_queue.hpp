#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "tokenizer/rank.hpp"

namespace tokenizer {

// The candidate merges of the long-piece BPE, popped in exactly ascending (rank, offset) order:
// the lowest rank first and, among equal ranks, the leftmost.
//
// Candidates are bucketed by rank: one list of offsets per rank, and a min-heap of the ranks
// that have candidates. BPE gives this an easy shape: merging a pair of rank r never creates a
// new pair of rank r (the new pairs strictly contain that token's bytes, and a rank names one
// byte string), so a rank's list, sorted once, drains left to right in O(1) per pop. A push of
// a lower rank while a rank drains (rare: a longer token with a lower rank) preempts it: the
// rest of its list is put back and re-sorted when its turn comes again. A push of the draining
// rank itself is still handled exactly, by a sorted insert.
class MergeQueue {
 public:
  void clear();
  bool empty() const { return heap_.empty() && (draining_ == kNone || cursor_ == lists_[draining_].size()); }

  void push(Rank rank, std::uint32_t offset);
  // The next candidate; false when none is left.
  bool pop(Rank& rank, std::uint32_t& offset);

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  std::uint32_t list_of(Rank rank);  // index of rank's list, created if new

  // Lists of offsets, reused across pieces: lists_[i] belongs to ranks_[i] while i < used_.
  std::vector<std::vector<std::uint32_t>> lists_;
  std::vector<Rank> ranks_;
  std::vector<bool> queued_;  // whether ranks_[i] is in heap_
  std::uint32_t used_ = 0;
  // Open-addressing map from rank to list index (kNone: empty slot); power-of-two size.
  std::vector<std::uint32_t> index_;
  std::vector<Rank> heap_;  // min-heap of ranks with pending candidates
  std::uint32_t draining_ = kNone;
  std::size_t cursor_ = 0;
};

}  // namespace tokenizer
