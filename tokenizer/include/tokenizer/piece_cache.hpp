#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "tokenizer/rank.hpp"

namespace tokenizer {

// Remembers the BPE result of short pieces that were not whole tokens, so that a word met
// again later in the same text costs one probe instead of a dozen rank lookups. Direct-mapped
// and exact: an entry holds the piece's bytes, and a hit is a byte-for-byte match. One cache
// line per entry; the table is allocated on first use. Text whose words do not recur (random
// base64) would only pay for the stores, so a cache whose hits stay below 1 in 16 after
// kProbation stores switches itself off.
class PieceCache {
 public:
  static constexpr std::size_t kMaxPiece = 14;  // bytes of a cacheable piece
  static constexpr std::size_t kMaxIds = 12;    // ids of a cacheable result
  static constexpr std::size_t kEntries = 4096;
  static constexpr std::size_t kProbation = 2 * kEntries;

  // Appends the cached ids of `piece` to `out` and returns true, or returns false.
  bool lookup(std::string_view piece, std::vector<Rank>& out) {
    if (!entries_ || piece.size() > kMaxPiece) return false;
    const Entry& e = entries_[slot(piece)];
    if (e.key_size != piece.size() || std::memcmp(e.key, piece.data(), piece.size()) != 0) return false;
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
    Entry& e = entries_[slot(piece)];
    e.key_size = static_cast<std::uint8_t>(piece.size());
    e.id_count = static_cast<std::uint8_t>(count);
    std::memcpy(e.key, piece.data(), piece.size());
    std::memcpy(e.ids, ids, count * sizeof(Rank));
  }

 private:
  struct Entry {
    std::uint8_t key_size;  // 0: empty (pieces are never empty)
    std::uint8_t id_count;
    char key[kMaxPiece];
    Rank ids[kMaxIds];
  };
  static_assert(sizeof(Entry) == 64);

  static std::size_t slot(std::string_view piece) {
    std::uint64_t a = 0, b = 0;
    std::memcpy(&a, piece.data(), piece.size() < 8 ? piece.size() : 8);
    if (piece.size() > 8) std::memcpy(&b, piece.data() + 8, piece.size() - 8);
    const std::uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ piece.size();
    return (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull >> 52;  // top 12 bits: kEntries slots
  }

  std::unique_ptr<Entry[]> entries_;
  std::size_t hits_ = 0;
  std::size_t stores_ = 0;
  bool off_ = false;
};

}  // namespace tokenizer
