#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "tokenizer/rank.hpp"
#include "tokenizer/rank_table.hpp"

namespace tokenizer {

// Remembers the ids of short pieces that are no token, the ones BPE must merge, across every call
// and thread of a Tokenizer, so that a word met before costs one probe instead of a dozen rank
// lookups.
//
// Exact: a piece's ids depend on its bytes alone, and an entry holds the piece's bytes as two words
// and its size; a hit is a match of all three.
// Bounded: a fixed table, allocated once, of cache lines that each hold two entries of 32 bytes
// (two-way set-associative); a piece may sit in either entry of the line its hash picks, and a
// new piece replaces an empty entry, else one of the two chosen by its hash. It never grows.
// Small: an entry holds up to three ids of 21 bits (every built-in vocabulary has fewer than 2^21
// ids), which covers about nine merged pieces in ten of English; a table of 512 KiB, half the L2
// cache of the machines measured, then holds the 7,500 distinct merged pieces of a megabyte of
// Shakespeare with few evictions, and a probe that misses, as every first occurrence does, costs
// an L2 access rather than a trip to memory.
// Concurrent: each entry is a sequence lock. A writer makes the entry's sequence odd (skipping the
// store if another writer holds it), writes, and makes it even again; a reader copies the entry and
// keeps the copy only if the sequence was even and unchanged around it. Every field is an atomic
// word accessed with relaxed loads and stores (plain moves on x86), so no access is a data race.
class PieceCache {
 public:
  static constexpr std::size_t kMaxPiece = 16;  // bytes of a cacheable piece
  static constexpr std::size_t kMaxIds = 3;     // ids of a cacheable result
  static constexpr unsigned kIdBits = 21;       // ids of a cacheable result are below 2^kIdBits
  static constexpr std::size_t kEntryBytes = 32;
  static constexpr std::size_t kLineBytes = 64;

  // The largest power of two of lines that fits in `bytes`; at least one line.
  explicit PieceCache(std::size_t bytes) {
    std::size_t lines = 1;
    while (lines <= bytes / (2 * kLineBytes)) lines *= 2;
    mask_ = lines - 1;
    lines_ = std::make_unique<Line[]>(lines);
  }

  std::size_t memory_bytes() const { return (mask_ + 1) * kLineBytes; }

  // Appends the cached ids of `piece` to `out` and returns true, or returns false.
  bool lookup(std::string_view piece, std::vector<Rank>& out) const {
    if (piece.size() > kMaxPiece) return false;
    const Key key = key_of(piece);
    const Line& line = lines_[line_of(key)];
    for (const Entry& e : line.entries) {
      const std::uint64_t state = e.state.load(std::memory_order_acquire);
      if (piece_size(state) != piece.size() || (state & 1) != 0 || e.head.load(std::memory_order_relaxed) != key.head ||
          e.rest.load(std::memory_order_relaxed) != key.rest)
        continue;
      const std::uint64_t ids = e.ids.load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (e.state.load(std::memory_order_relaxed) != state) return false;  // written meanwhile
      constexpr std::uint64_t kIdMask = (std::uint64_t{1} << kIdBits) - 1;
      for (std::size_t i = 0; i < id_count(state); ++i) out.push_back(static_cast<Rank>(ids >> (i * kIdBits) & kIdMask));
      return true;
    }
    return false;
  }

  // Remembers that `piece` encodes to `ids` (when both fit), replacing what its entry held; does
  // nothing while another thread writes that entry.
  void store(std::string_view piece, const Rank* ids, std::size_t count) {
    if (piece.size() > kMaxPiece || count > kMaxIds) return;
    std::uint64_t packed = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (ids[i] >> kIdBits) return;
      packed |= std::uint64_t{ids[i]} << (i * kIdBits);
    }
    const Key key = key_of(piece);
    Line& line = lines_[line_of(key)];
    // The first entry that is empty or holds a piece with the same first bytes (likely this one),
    // else the one the hash picks, so that neither entry is always the one replaced.
    Entry* e = &line.entries[key.hash >> 63];
    for (Entry& candidate : line.entries) {
      if (piece_size(candidate.state.load(std::memory_order_relaxed)) == 0 ||
          candidate.head.load(std::memory_order_relaxed) == key.head) {
        e = &candidate;
        break;
      }
    }
    std::uint64_t state = e->state.load(std::memory_order_relaxed);
    // Acquire: none of the stores below may become visible before the odd sequence does.
    if ((state & 1) != 0 || !e->state.compare_exchange_strong(state, state | 1, std::memory_order_acquire)) return;
    e->head.store(key.head, std::memory_order_relaxed);
    e->rest.store(key.rest, std::memory_order_relaxed);
    e->ids.store(packed, std::memory_order_relaxed);
    const std::uint64_t sequence = (state + 2) & kSequenceMask;
    e->state.store(sequence | std::uint64_t{piece.size()} << 32 | std::uint64_t{count} << 40, std::memory_order_release);
  }

 private:
  // An entry's state: bits 0-31 its sequence (odd while a writer holds it), 32-39 the piece's size
  // (0: empty, for pieces are never empty), 40-47 the number of ids.
  static constexpr std::uint64_t kSequenceMask = 0xFFFF'FFFE;
  static std::size_t piece_size(std::uint64_t state) { return (state >> 32) & 0xFF; }
  static std::size_t id_count(std::uint64_t state) { return (state >> 40) & 0xFF; }

  struct Entry {
    std::atomic<std::uint64_t> state{0};
    std::atomic<std::uint64_t> head{0}, rest{0};  // the piece's Key
    std::atomic<std::uint64_t> ids{0};            // id i in bits [i * kIdBits, (i + 1) * kIdBits)
  };
  struct alignas(kLineBytes) Line {
    Entry entries[2];
  };
  static_assert(sizeof(Entry) == kEntryBytes && sizeof(Line) == kLineBytes);

  // A piece of up to 16 bytes as two little-endian words: its first min(size, 8) bytes
  // (RankTable::load_head) and the bytes after those, each zero-padded; with the size, they
  // tell every piece apart. They come from loads within the piece and a shift, not a copy of a
  // piece of variable size, which called memcpy to hash it and memcmp to compare it, a call per
  // piece of text.
  struct Key {
    std::uint64_t head, rest;
    std::uint64_t hash;
  };
  static Key key_of(std::string_view piece) {
    const auto* data = reinterpret_cast<const std::uint8_t*>(piece.data());
    const std::size_t size = piece.size();
    std::uint64_t rest = 0;
    if (size > 8) {
      // The last 8 bytes, shifted right past the 16 - size of them that the head holds.
      std::uint64_t last;
      std::memcpy(&last, data + size - 8, 8);
      rest = last >> (8 * (16 - size));
    }
    const std::uint64_t head = RankTable::load_head(data, size);
    const std::uint64_t h = (head * 0x9E3779B97F4A7C15ull) ^ (rest * 0xC2B2AE3D27D4EB4Full) ^ size;
    return {head, rest, (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull};
  }
  std::size_t line_of(const Key& key) const { return (key.hash >> 32) & mask_; }

  std::size_t mask_;  // lines - 1
  std::unique_ptr<Line[]> lines_;
};

}  // namespace tokenizer
