#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "tokenizer/rank.hpp"
#include "tokenizer/rank_table.hpp"

namespace tokenizer {

// Remembers the BPE result of short pieces that were not whole tokens, so that a word met
// again later in the same text costs one probe instead of a dozen rank lookups. Direct-mapped
// and exact: an entry holds the piece's bytes as two words and its size, and a hit is a match
// of all three. One cache line per entry; the table is allocated on first use. Text whose
// words do not recur (random base64) would only pay for the stores, so a cache whose hits stay
// below 1 in 16 after kProbation stores switches itself off.
class PieceCache {
 public:
  static constexpr std::size_t kMaxPiece = 16;  // bytes of a cacheable piece
  static constexpr std::size_t kMaxIds = 10;    // ids of a cacheable result
  static constexpr std::size_t kEntries = 4096;
  static constexpr std::size_t kProbation = 2 * kEntries;

  // Appends the cached ids of `piece` to `out` and returns true, or returns false.
  bool lookup(std::string_view piece, std::vector<Rank>& out) {
    if (!entries_ || piece.size() > kMaxPiece) return false;
    const Key key = key_of(piece);
    const Entry& e = entries_[slot(key)];
    if (e.key_size != piece.size() || e.head != key.head || e.rest != key.rest) return false;
    out.insert(out.end(), e.ids, e.ids + e.id_count);
    ++hits_;
    return true;
  }

  // Remembers that `piece` encodes to `ids` (when both fit), replacing what its slot held.
  void store(std::string_view piece, const Rank* ids, std::size_t count) {
    if (off_ || piece.size() > kMaxPiece || count > kMaxIds) return;
    if (++stores_ == kProbation && hits_ * 16 < stores_) {
      off_ = true;
      entries_.reset();
      return;
    }
    if (!entries_) entries_.reset(new Entry[kEntries]());
    const Key key = key_of(piece);
    Entry& e = entries_[slot(key)];
    e.key_size = static_cast<std::uint8_t>(piece.size());
    e.id_count = static_cast<std::uint8_t>(count);
    e.head = key.head;
    e.rest = key.rest;
    std::memcpy(e.ids, ids, count * sizeof(Rank));
  }

 private:
  struct Entry {
    std::uint8_t key_size;  // 0: empty (pieces are never empty)
    std::uint8_t id_count;
    std::uint64_t head, rest;  // the piece's Key
    Rank ids[kMaxIds];
  };
  static_assert(sizeof(Entry) == 64);

  // A piece of up to 16 bytes as two little-endian words: its first min(size, 8) bytes
  // (RankTable::load_head) and the bytes after those, each zero-padded; with the size, they
  // tell every piece apart. They come from loads within the piece and a shift, not a copy of a
  // piece of variable size, which called memcpy to hash it and memcmp to compare it, a call per
  // piece of text.
  struct Key {
    std::uint64_t head, rest;
    std::size_t size;
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
    return {RankTable::load_head(data, size), rest, size};
  }
  static std::size_t slot(const Key& key) {
    const std::uint64_t h = (key.head * 0x9E3779B97F4A7C15ull) ^ (key.rest * 0xC2B2AE3D27D4EB4Full) ^ key.size;
    return (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull >> 52;  // top 12 bits: kEntries slots
  }

  std::unique_ptr<Entry[]> entries_;
  std::size_t hits_ = 0;
  std::size_t stores_ = 0;
  bool off_ = false;
};

}  // namespace tokenizer
