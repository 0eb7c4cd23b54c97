#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/rank.hpp"

namespace tokenizer {

// The ids of the longest pieces that a Tokenizer's encoders met, shared by all of its threads:
// pieces of at least kMinPiece bytes, such as a megabyte of one letter, of spaces, or of base64
// without a separator, each a single piece that the long-piece encoder takes milliseconds over,
// and far beyond what a piece memo's long-piece records keep (a quarter of their arena).
//   Exact: a piece is found only where its size and every one of its bytes match a record's.
//   Bounded: records (each a piece's bytes and ids) of at most `bytes` in all; storing one
//   forgets the least lately used until it fits; a piece whose record alone exceeds the bound is
//   not kept.
//   Thread-safe: one mutex. A lookup compares sizes and, where one matches, bytes; a store copies
//   the piece: work at memory speed, held under the lock, against milliseconds of encoding.
class HugePieceCache {
 public:
  static constexpr std::size_t kMinPiece = std::size_t{64} << 10;

  explicit HugePieceCache(std::size_t bytes) : bound_(bytes) {}

  // Appends the ids of `piece` and returns true, or returns false.
  bool append(std::string_view piece, std::vector<Rank>& out);
  // Remembers that `piece` encodes to `ids`, if its record fits the bound.
  void store(std::string_view piece, std::span<const Rank> ids);
  // The bytes and ids the records hold now: at most the bound.
  std::size_t memory_bytes() const;

 private:
  struct Record {
    std::string bytes;
    std::vector<Rank> ids;
    std::uint64_t last_use;
  };
  static std::size_t memory_of(std::size_t size, std::size_t ids) { return size + ids * sizeof(Rank); }
  // The record of `piece`, or records_.end(). Holds the lock.
  std::vector<Record>::iterator find(std::string_view piece);

  const std::size_t bound_;
  mutable std::mutex mutex_;
  std::vector<Record> records_;  // few: each at least kMinPiece bytes
  std::size_t used_ = 0;         // memory_of every record
  std::uint64_t uses_ = 0;       // the clock of last_use
};

}  // namespace tokenizer
