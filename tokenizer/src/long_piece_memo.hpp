#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tokenizer/rank.hpp"

namespace tokenizer {

// The ids of the pieces of more than PieceMemo::kMaxPiece bytes that one thread met lately, the
// part of a PieceMemo for pieces its tables cannot key. English has few (under 1% of its pieces),
// but text in scripts of two or three bytes a letter has many: Hindi words of 17 to 40 bytes,
// runs of Chinese or Japanese of hundreds, each merged anew on every call without this, which
// took more than half of a warm pass over the multilingual text (docs/performance-notes.md).
//
// Layout: an arena of records, each its piece's id count (4 bytes), ids (4 bytes each) and bytes,
// padded to a multiple of 4 bytes; and an index of 16-byte slots, open addressing with linear
// probing, at most half full: a slot holds the piece's hash (with its lowest bit set, so that 0
// marks an empty slot), its size and its record's offset in 4-byte words.
//   Exact: a hit compares every byte of the piece with its record's.
//   Bounded: `bytes` in all, an eighth of it the index. A record of more than a quarter of the
//   arena is not kept; when a record does not fit (the arena or the index full), the memo forgets
//   everything at once and starts again: a text whose long pieces do not fit pays for filling it
//   again, never for more memory.
// Not thread-safe: one user at a time, as its PieceMemo.
class LongPieceMemo {
 public:
  explicit LongPieceMemo(std::size_t bytes);

  // The memory of a memo made with `bytes`: none below kMinBytes, else at most bytes.
  static std::size_t memory_for(std::size_t bytes);
  std::size_t memory_bytes() const { return slot_count_ * sizeof(Slot) + arena_words_ * sizeof(std::uint32_t); }
  static constexpr std::size_t kMinBytes = 4096;

  // Appends the ids of the piece of `size` bytes (more than 8) at `data` and returns true, or
  // returns false. A piece too long to be kept is not even hashed.
  bool append(const std::uint8_t* data, std::size_t size, std::vector<Rank>& out) const;
  // Asks for the line of the piece's first slot, which append reads first (a load of it, not a
  // wait), if a piece that long is kept. Always inline, for a function whose only effect is a
  // prefetch is judged to have none, and its calls dropped.
  [[gnu::always_inline]] void prefetch(const std::uint8_t* data, std::size_t size) const {
    if (keeps(record_words(size, 1))) __builtin_prefetch(&slots_[home(hash(data, size))]);
  }
  // Remembers that the piece encodes to `ids` (count of them), if its record fits.
  void store(const std::uint8_t* data, std::size_t size, const Rank* ids, std::size_t count);

 private:
  struct Slot {
    std::uint64_t hash;  // 0: empty
    std::uint32_t size;
    std::uint32_t offset;  // of the record, in words of the arena
  };
  static std::uint64_t hash(const std::uint8_t* data, std::size_t size);
  // Arena words of the record of a piece of `size` bytes and `count` ids, and whether one that
  // long is kept: at most a quarter of the arena (none where the memo has no memory).
  static std::size_t record_words(std::size_t size, std::size_t count) { return 1 + count + (size + 3) / 4; }
  bool keeps(std::size_t words) const { return words <= arena_words_ / 4; }
  // The slots a piece of this hash probes start here.
  std::size_t home(std::uint64_t h) const { return static_cast<std::size_t>(h >> 32) & (slot_count_ - 1); }
  void forget_everything();

  std::size_t slot_count_ = 0;  // a power of two, or 0: no memory
  std::unique_ptr<Slot[]> slots_;
  std::size_t arena_words_ = 0;
  std::unique_ptr<std::uint32_t[]> arena_;
  std::size_t used_words_ = 0;
  std::size_t records_ = 0;
};

}  // namespace tokenizer
