#pragma once

#include <cstddef>
#include <cstdint>

#include "tokenizer/rank.hpp"
#include "tokenizer/rank_table.hpp"

namespace tokenizer {

// Looks up whole pieces in a RankTable, through its filter while many of them miss.
//
// A miss in the main table probes memory that a large vocabulary seldom keeps in cache; the
// filter settles most misses from one cached word, but adds a hash and a load to every hit:
// English misses on a few percent of its pieces and loses by filtering, random base64 and text
// in other scripts miss on far more and win (docs/performance-notes.md). So lookups are counted in windows of at
// least kWindow, and a window whose share of misses is above 1/kMissShareInverse turns the filter
// on for the next. The answer is the same either way: the filter has no false negatives.
class WholePieceLookup {
 public:
  static constexpr std::size_t kWindow = 1024;
  static constexpr std::size_t kMissShareInverse = 16;

  // `filtering`: whether the first window goes through the filter.
  explicit WholePieceLookup(const RankTable& ranks, bool filtering = false) : ranks_(&ranks), filtering_(filtering) {}

  // Rank of exactly these bytes, or kNoRank. Inlined always: see BytePairEncoder::encode.
  [[gnu::always_inline]] Rank find(const std::uint8_t* data, std::size_t size) {
    return count(filtering_ ? ranks_->find_filtered(data, size) : ranks_->find(data, size));
  }
  // find with RankTable::find_padded's precondition.
  [[gnu::always_inline]] Rank find_padded(const std::uint8_t* data, std::size_t size) {
    return count(filtering_ ? ranks_->find_filtered_padded(data, size) : ranks_->find_padded(data, size));
  }

  // Whether lookups go through the filter now.
  bool filtering() const { return filtering_; }

 private:
  [[gnu::always_inline]] Rank count(Rank rank) {
    ++lookups_;
    if (rank == kNoRank) count_miss();
    return rank;
  }
  // Windows close on a miss, which keeps the path of hits to a count: a window of hits alone
  // lasts until the next miss, and then turns the filter off.
  void count_miss() {
    ++misses_;
    if (lookups_ < kWindow) return;
    filtering_ = misses_ * kMissShareInverse > lookups_;
    lookups_ = 0;
    misses_ = 0;
  }

  const RankTable* ranks_;
  std::size_t lookups_ = 0;
  std::size_t misses_ = 0;
  bool filtering_ = false;
};

}  // namespace tokenizer
