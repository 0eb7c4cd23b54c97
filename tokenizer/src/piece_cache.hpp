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

// A table of PieceCache: the ids of pieces of up to 8 * KeyWords bytes and 3 * IdWords ids.
//
// Exact: a piece's ids depend on its bytes alone, and an entry holds all of a piece's bytes (as
// KeyWords words, zero-padded) and its size; a hit is a match of every one.
// Bounded: a fixed array of 64-byte lines, allocated once, each holding as many entries as fit
// (kWays); a piece may sit in any entry of the line its hash picks, and a new piece takes an empty
// entry or one with the same first bytes, else replaces the one its hash picks. It never grows.
// Small: ids are packed 21 bits apiece, three to a word (every built-in vocabulary has fewer than
// 2^21 ids), so an entry of a short piece is 32 bytes.
// Concurrent: each entry is a sequence lock. A writer makes the entry's sequence odd (skipping the
// store if another writer holds it), writes, and makes it even again; a reader copies the entry and
// keeps the copy only if the sequence was even and unchanged around it. Every field is an atomic
// word accessed with relaxed loads and stores (plain moves on x86), so no access is a data race.
template <std::size_t KeyWords, std::size_t IdWords>
class PieceTable {
 public:
  static constexpr std::size_t kMaxPiece = 8 * KeyWords;  // bytes of a cacheable piece
  static constexpr std::size_t kMaxIds = 3 * IdWords;     // ids of a cacheable result
  static constexpr unsigned kIdBits = 21;                  // and each below 2^kIdBits
  static constexpr std::size_t kLineBytes = 64;

  // The largest power of two of lines that fits in `bytes`; at least one line.
  explicit PieceTable(std::size_t bytes) {
    std::size_t lines = 1;
    while (lines <= bytes / (2 * kLineBytes)) lines *= 2;
    mask_ = lines - 1;
    lines_ = std::make_unique<Line[]>(lines);
  }

  std::size_t memory_bytes() const { return (mask_ + 1) * kLineBytes; }

  // Appends the cached ids of `piece` (of at most kMaxPiece bytes) to `out` and returns true, or
  // returns false.
  bool lookup(std::string_view piece, std::vector<Rank>& out) const {
    const Key key = key_of(piece);
    for (const Entry& e : lines_[line_of(key)].entries) {
      const std::uint64_t state = e.state.load(std::memory_order_acquire);
      if (piece_size(state) != piece.size() || (state & 1) != 0 || !holds(e, key)) continue;
      std::uint64_t ids[IdWords];
      for (std::size_t i = 0; i < IdWords; ++i) ids[i] = e.ids[i].load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (e.state.load(std::memory_order_relaxed) != state) return false;  // written meanwhile
      constexpr std::uint64_t kIdMask = (std::uint64_t{1} << kIdBits) - 1;
      for (std::size_t i = 0; i < id_count(state); ++i)
        out.push_back(static_cast<Rank>(ids[i / 3] >> (i % 3 * kIdBits) & kIdMask));
      return true;
    }
    return false;
  }

  // Remembers that `piece` (of at most kMaxPiece bytes) encodes to `ids` (when they fit),
  // replacing what its entry held; does nothing while another thread writes that entry.
  void store(std::string_view piece, const Rank* ids, std::size_t count) {
    if (count > kMaxIds) return;
    std::uint64_t packed[IdWords] = {};
    for (std::size_t i = 0; i < count; ++i) {
      if (ids[i] >> kIdBits) return;
      packed[i / 3] |= std::uint64_t{ids[i]} << (i % 3 * kIdBits);
    }
    const Key key = key_of(piece);
    Line& line = lines_[line_of(key)];
    // The first entry that is empty or holds a piece with the same first bytes (likely this one),
    // else the one the hash picks, so that no entry is always the one replaced.
    Entry* e = &line.entries[(key.hash >> 60) % kWays];
    for (Entry& candidate : line.entries) {
      if (piece_size(candidate.state.load(std::memory_order_relaxed)) == 0 ||
          candidate.key[0].load(std::memory_order_relaxed) == key.words[0]) {
        e = &candidate;
        break;
      }
    }
    std::uint64_t state = e->state.load(std::memory_order_relaxed);
    // Acquire: none of the stores below may become visible before the odd sequence does.
    if ((state & 1) != 0 || !e->state.compare_exchange_strong(state, state | 1, std::memory_order_acquire)) return;
    for (std::size_t i = 0; i < KeyWords; ++i) e->key[i].store(key.words[i], std::memory_order_relaxed);
    for (std::size_t i = 0; i < IdWords; ++i) e->ids[i].store(packed[i], std::memory_order_relaxed);
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
    std::atomic<std::uint64_t> key[KeyWords] = {};  // the piece's Key::words
    std::atomic<std::uint64_t> ids[IdWords] = {};   // id i in bits [i % 3 * kIdBits, ...) of word i / 3
  };
  static constexpr std::size_t kWays = kLineBytes / sizeof(Entry);
  static_assert(kWays >= 1 && kLineBytes % sizeof(Entry) == 0);
  struct alignas(kLineBytes) Line {
    Entry entries[kWays];
  };
  static_assert(sizeof(Line) == kLineBytes);

  // A piece's bytes as little-endian words, word i holding bytes [8i, 8i + 8) zero-padded past the
  // piece's end; with the size they tell every piece apart. They come from fixed-size loads within
  // the piece and shifts, not a copy of a piece of variable size, which called memcpy to hash it
  // and memcmp to compare it, a call per piece of text.
  struct Key {
    std::uint64_t words[KeyWords];
    std::uint64_t hash;
  };
  static Key key_of(std::string_view piece) {
    const auto* data = reinterpret_cast<const std::uint8_t*>(piece.data());
    const std::size_t size = piece.size();
    Key key;
    key.words[0] = RankTable::load_head(data, size);  // its first min(size, 8) bytes
    std::uint64_t h = key.words[0] * 0x9E3779B97F4A7C15ull ^ size;
    for (std::size_t i = 1; i < KeyWords; ++i) {
      std::uint64_t word = 0;
      if (size >= 8 * (i + 1)) {
        std::memcpy(&word, data + 8 * i, 8);
      } else if (size > 8 * i) {
        // The last 8 bytes (size > 8, so within the piece), shifted right past those that the
        // earlier words hold.
        std::memcpy(&word, data + size - 8, 8);
        word >>= 8 * (8 * (i + 1) - size);
      }
      key.words[i] = word;
      h = (h ^ word) * 0xC2B2AE3D27D4EB4Full;
    }
    key.hash = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull;
    return key;
  }
  static bool holds(const Entry& e, const Key& key) {
    for (std::size_t i = 0; i < KeyWords; ++i)
      if (e.key[i].load(std::memory_order_relaxed) != key.words[i]) return false;
    return true;
  }
  std::size_t line_of(const Key& key) const { return (key.hash >> 32) & mask_; }

  std::size_t mask_;  // lines - 1
  std::unique_ptr<Line[]> lines_;
};

// Remembers the ids of pieces that are no token, the ones BPE must merge, across every call and
// thread of a Tokenizer, so that a word met before costs one probe instead of a dozen rank
// lookups (see PieceTable). An encoder that holds a PieceMemo asks the cache only for pieces of
// more than 16 bytes (the memo remembers the shorter ones from their first occurrence on); the
// short table serves the encoders that found every memo leased, or none made. So it is small (the
// default memory is a quarter of the L2 cache of the machines measured) and leaves the L2 cache
// to the memo and the rank table. Two tables, each given half the memory:
//   short: pieces of up to 16 bytes and 3 ids, two entries of 32 bytes a line; nine merged pieces
//          in ten of English.
//   long:  pieces of 17 to 32 bytes and up to 9 ids, an entry a line: words of scripts with
//          two or three bytes a letter (most merged pieces of Russian or Hindi); and, by the
//          overflow route, short pieces of 4 to 9 ids (one merged piece in ten of English).
// A piece is stored in one table, chosen by its size and number of ids, so it is found in the
// table that holds it or not at all.
class PieceCache {
 public:
  using ShortTable = PieceTable<2, 1>;
  using LongTable = PieceTable<4, 3>;
  static constexpr std::size_t kMaxPiece = LongTable::kMaxPiece;
  static constexpr std::size_t kMaxShortPiece = ShortTable::kMaxPiece;
  // The smallest memory of a cache: a line for each table.
  static constexpr std::size_t kMinBytes = 2 * ShortTable::kLineBytes;

  explicit PieceCache(std::size_t bytes) : short_(bytes / 2), long_(bytes / 2) {}

  std::size_t memory_bytes() const { return short_.memory_bytes() + long_.memory_bytes(); }

  // Appends the cached ids of `piece` to `out` and returns true, or returns false. A short piece
  // (of at most kMaxShortPiece bytes) is looked for in the short table only.
  bool lookup(std::string_view piece, std::vector<Rank>& out) const {
    if (piece.size() <= ShortTable::kMaxPiece) return short_.lookup(piece, out);
    return piece.size() <= LongTable::kMaxPiece && long_.lookup(piece, out);
  }
  // lookup of a short piece on the overflow route: in the long table.
  bool lookup_overflow(std::string_view piece, std::vector<Rank>& out) const { return long_.lookup(piece, out); }
  // Remembers that `piece` encodes to `ids`, when they fit a table; a short piece of more ids than
  // the short table holds only with `overflow`.
  void store(std::string_view piece, const Rank* ids, std::size_t count, bool overflow) {
    if (piece.size() <= ShortTable::kMaxPiece) {
      if (count <= ShortTable::kMaxIds)
        short_.store(piece, ids, count);
      else if (overflow)
        long_.store(piece, ids, count);
    } else if (piece.size() <= LongTable::kMaxPiece) {
      long_.store(piece, ids, count);
    }
  }

 private:
  ShortTable short_;
  LongTable long_;
};

}  // namespace tokenizer
