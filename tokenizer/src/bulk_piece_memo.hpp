#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "long_piece_memo.hpp"
#include "tokenizer/rank.hpp"
#include "tokenizer/rank_table.hpp"
#include "zeroed_pages.hpp"

namespace tokenizer {

// The ids of the pieces of text whose pieces are too many and too seldom repeated for the
// PieceMemo: random base64 has about 300,000 pieces a megabyte, 108,000 of them distinct merged
// pieces, a fifth of those of more ids than a memo entry holds, where a megabyte of English has
// 7,600. An encoder turns to it when the memo stops paying (BytePairEncoder::count_memo_miss) and
// keeps it for the rest of the call, storing every piece it meets, so that the next call over the
// same text finds them: a piece then costs a line read from memory, which the encoder asks for a
// few pieces ahead (prefetch), instead of a merge of half a dozen rounds of lookups.
//
// Layout: buckets of two 64-byte lines, each line two 32-byte slots; a piece's hash picks a bucket.
// A piece of up to 4 ids takes a slot, one of more (up to kMaxIds) a line, whose first slot says
// so. A slot is two words and four 32-bit ids:
//   word 0: the piece's first 8 bytes, little-endian, zero-padded past its end;
//   word 1: its last 8 bytes where it has more than 8 (overlapping word 0 below 16), else 0;
//   ids 0-3: its first ids, id 0 in bits 0-19 of the first, beside the piece's size (bits 20-24;
//            0 marks an empty slot, for pieces are never empty) and id count (bits 25-29); for a
//            piece of more than 4 ids, the next slot's 32 bytes hold 8 more.
// Ids as whole words, not packed, because unpacking them is most of a hit's work. Key words and
// size tell every piece apart, so a hit is exact. A piece of more than kMaxIds ids (107 of the
// 108,000 distinct merged pieces of a megabyte of random base64) or with an id of 2^20 or more is
// not kept. Buckets pair up: a piece for which its bucket has no room goes to the pair's, which a
// lookup reads only where the piece's bucket has no empty line. Where neither has
// room, the newest piece takes a slot or a line of its bucket that its hash picks, whatever was
// there (a line's second slot is emptied where a piece of one slot takes the first slot of a line
// of more ids). Longer pieces go to a LongPieceMemo of an eighth of the memory.
// Not thread-safe: it belongs to a PieceMemoPool's slot, as the slot's PieceMemo does.
class BulkPieceMemo {
 public:
  static constexpr std::size_t kMaxPiece = 16;
  static constexpr std::size_t kMaxIds = 12;
  static constexpr std::size_t kSlotIds = 4;  // the ids a piece of one slot has at most
  static constexpr unsigned kIdBits = 20;
  static constexpr std::size_t kMinBytes = 4096;

  // At most `bytes` (kMinBytes or more): seven eighths of it buckets, the rest the long pieces'.
  explicit BulkPieceMemo(std::size_t bytes);
  static std::size_t memory_for(std::size_t bytes);
  std::size_t memory_bytes() const { return bucket_count_ * sizeof(Bucket) + longer_.memory_bytes(); }

  struct Slot {
    std::uint64_t key[2];
    std::uint32_t ids[kSlotIds];  // and, for a piece of more than kSlotIds ids, the next slot's bytes
  };
  // Every call takes a piece of `size` bytes (at least 1) at `data` with 8 readable bytes from
  // data on, as the batch scanner hands them over (RankTable::find_padded's precondition): its key
  // is read with one load and a mask, not a branch on the size, which follows no pattern.
  //
  // A piece's key and bucket, its lines asked for (a load of them, not a wait): what find needs,
  // made a few pieces ahead by the encoder (BytePairEncoder::kBulkAhead). `slots` is null for a
  // piece the buckets do not keep (more than kMaxPiece bytes), whose first slot in the long
  // pieces' memo is asked for instead, for its lookup waited on that line. Always inline: GCC
  // judges a function whose only effect is a prefetch to have none, and drops the calls to it.
  struct Probe {
    std::uint64_t head;
    std::uint64_t tail;
    const Slot* slots;
  };
  [[gnu::always_inline]] Probe probe(const std::uint8_t* data, std::size_t size) const {
    if (size > kMaxPiece) {
      longer_.prefetch(data, size);
      return {0, 0, nullptr};
    }
    const Key key = key_of(data, size);
    const Slot* slots = buckets_[bucket_of(key)].slots;
    __builtin_prefetch(&slots[0]);
    __builtin_prefetch(&slots[2]);
    return {key.head, key.tail, slots};
  }
  // The slot that holds the piece of `size` bytes that `probe` describes, for unpack, or nullptr.
  // The bucket's first slot first: it holds the first piece stored there, two pieces in three at
  // the load of random base64 in 16 MiB.
  [[gnu::always_inline]] static const Slot* find(const Probe& probe, std::size_t size) {
    const Slot* slots = probe.slots;
    if (((slots[0].key[0] ^ probe.head) | (slots[0].key[1] ^ probe.tail) | (size_of(slots[0]) ^ size)) == 0) [[likely]]
      return slots;
    return find_later(probe, size);
  }
  // Writes the ids of the slot that find returned to `ids`, with room for kMaxIds (those past the
  // count are garbage), and returns the count: no branch on it but whether the piece takes a line.
  [[gnu::always_inline]] static std::size_t unpack(const Slot* slot, Rank* ids) {
    std::memcpy(ids, slot->ids, sizeof(slot->ids));
    ids[0] &= kIdMask;
    const std::size_t count = count_of(*slot);
    if (count > kSlotIds) [[unlikely]]
      std::memcpy(ids + kSlotIds, &slot[1], sizeof(Slot));
    return count;
  }
  // Appends the ids of the piece to `out` and returns true, or returns false.
  bool append(const std::uint8_t* data, std::size_t size, std::vector<Rank>& out) const;
  // Remembers that the piece encodes to `ids` (count of them), if they fit.
  void store(const std::uint8_t* data, std::size_t size, const Rank* ids, std::size_t count);

 private:
  // The piece of more than kSlotIds ids spans two slots: 4 ids in its first, 8 in the next.
  static_assert(kMaxIds == kSlotIds + 32 / sizeof(Rank));
  static constexpr Rank kIdMask = (Rank{1} << kIdBits) - 1;
  // find past the first slot: the bucket's other slots, then, where the bucket has no empty line
  // (a piece finds no room there only then), its pair's.
  static const Slot* find_later(const Probe& probe, std::size_t size) {
    if (const Slot* slot = find_in(probe.slots, probe, size)) [[likely]]
      return slot;
    return has_empty_line(probe.slots) ? nullptr : find_in(pair_of(probe.slots), probe, size);
  }
  // Which of a bucket's slots holds a piece follows no pattern, so their keys are compared without
  // a branch, and the branches are on the answer: whether a slot matched, and (almost always so)
  // whether its size is the piece's.
  static const Slot* find_in(const Slot* slots, const Probe& probe, std::size_t size) {
    unsigned match = 0;
    for (unsigned i = 0; i < 4; ++i)
      match |= unsigned{((slots[i].key[0] ^ probe.head) | (slots[i].key[1] ^ probe.tail)) == 0} << i;
    // A line's second slot belongs to its first where that piece takes the whole line.
    match &= ~(unsigned{takes_line(slots[0])} << 1 | unsigned{takes_line(slots[2])} << 3);
    for (; match != 0; match &= match - 1) {
      const Slot* slot = &slots[std::countr_zero(match)];
      if (size_of(*slot) == size) [[likely]]
        return slot;
    }
    return nullptr;
  }
  static bool has_empty_line(const Slot* slots) {
    return (size_of(slots[0]) == 0 && size_of(slots[1]) == 0) || (size_of(slots[2]) == 0 && size_of(slots[3]) == 0);
  }
  // Buckets pair up, the even one with the next: the memory starts at a huge page's boundary, so
  // a bucket's pair is its address with the bit of sizeof(Bucket) flipped.
  template <typename S>
  static S* pair_of(S* slots) {
    return reinterpret_cast<S*>(reinterpret_cast<std::uintptr_t>(slots) ^ sizeof(Bucket));
  }
  struct alignas(128) Bucket {
    Slot slots[4];
  };
  struct Key {
    std::uint64_t head;
    std::uint64_t tail;
    std::uint64_t hash;
  };
  // store's slot (a piece of up to kSlotIds ids) or line (more) in the bucket: an empty one or the
  // piece's own; nullptr where there is none.
  static Slot* room_for(Slot* slots, const Key& key, std::size_t size, bool whole_line);
  // Two loads and masks: the tail's address is one within the 8 readable bytes where the piece has
  // no tail.
  [[gnu::always_inline]] static Key key_of(const std::uint8_t* data, std::size_t size) {
    const bool has_tail = size > 8;
    std::uint64_t tail;
    std::memcpy(&tail, data + (has_tail ? size - 8 : 0), 8);
    Key key{RankTable::padded_head(data, size), has_tail ? tail : 0, 0};
    const std::uint64_t h = (key.head ^ size) * 0x9E3779B97F4A7C15ull ^ key.tail * 0xC2B2AE3D27D4EB4Full;
    key.hash = h ^ h >> 31;
    return key;
  }
  static std::size_t size_of(const Slot& s) { return s.ids[0] >> kIdBits & 31; }
  static std::size_t count_of(const Slot& s) { return s.ids[0] >> (kIdBits + 5) & 31; }
  // Whether the slot starts a piece that takes its whole line.
  static bool takes_line(const Slot& s) { return count_of(s) > kSlotIds; }
  [[gnu::always_inline]] static bool holds(const Slot& s, const Key& key, std::size_t size) {
    return (size_of(s) == size) & (s.key[0] == key.head) & (s.key[1] == key.tail);
  }
  // The hash's high half scaled to the buckets: any number of them.
  std::size_t bucket_of(const Key& key) const { return static_cast<std::size_t>((key.hash >> 32) * bucket_count_ >> 32); }

  std::size_t bucket_count_;  // below 2^32
  // Zero until stored to, on huge pages where the kernel gives them: a lookup's line is a random
  // one of megabytes, and with 4 KiB pages nearly every one missed the TLB too.
  ZeroedPages memory_;
  Bucket* buckets_;
  LongPieceMemo longer_;
};

}  // namespace tokenizer
