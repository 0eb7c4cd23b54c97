#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "tokenizer/rank.hpp"

namespace tokenizer {

// The ranks of whole pieces of up to 8 bytes that one encoder found lately, in a small
// direct-mapped table of its own. A long text repeats a few thousand pieces; in the rank table
// each sits on a cache line of its own, most of them past the L2 cache, beside a filter word
// read first, and the whole-piece lookups of long English spent most of their time waiting for
// those loads (docs/performance-notes.md). Here a repeated piece costs one load from a table a
// sixteenth the size of the L2 cache. Exact: an entry holds the piece's head (its bytes,
// zero-padded) and its size.
class RecentWholePieces {
 public:
  static constexpr std::size_t kMaxPiece = 8;
  static constexpr unsigned kSlotBits = 12;
  static constexpr std::size_t kEntries = std::size_t{1} << kSlotBits;

  RecentWholePieces() : entries_(new Entry[kEntries]()) {}

  // The rank of the piece of `size` bytes (1 to kMaxPiece) whose head is `head`, or kNoRank if
  // this table does not hold it.
  Rank find(std::uint64_t head, std::size_t size) const {
    const Entry& e = entries_[slot(head, size)];
    return e.head == head && e.size == size ? e.rank : kNoRank;
  }
  void store(std::uint64_t head, std::size_t size, Rank rank) {
    entries_[slot(head, size)] = Entry{head, static_cast<std::uint32_t>(size), rank};
  }

 private:
  struct Entry {
    std::uint64_t head;
    std::uint32_t size;  // 0: empty, for pieces are never empty
    Rank rank;
  };
  static std::size_t slot(std::uint64_t head, std::size_t size) {
    return static_cast<std::size_t>(((head ^ size) * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits));
  }

  std::unique_ptr<Entry[]> entries_;
};

}  // namespace tokenizer
