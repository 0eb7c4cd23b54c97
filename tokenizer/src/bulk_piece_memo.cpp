#include "bulk_piece_memo.hpp"

namespace tokenizer {

namespace {

constexpr std::size_t kBucketBytes = 128;

// An even count: every bucket has its pair (BulkPieceMemo::pair_of).
std::size_t buckets_for(std::size_t bytes) { return bytes / 8 * 7 / (2 * kBucketBytes) * 2; }

}  // namespace

BulkPieceMemo::BulkPieceMemo(std::size_t bytes)
    : bucket_count_(buckets_for(bytes)),
      memory_(bucket_count_ * kBucketBytes),
      buckets_(static_cast<Bucket*>(memory_.data())),
      longer_(bytes - bucket_count_ * kBucketBytes) {
  static_assert(sizeof(Slot) == 32 && sizeof(Bucket) == kBucketBytes);
}

std::size_t BulkPieceMemo::memory_for(std::size_t bytes) {
  const std::size_t buckets = buckets_for(bytes);
  return buckets * kBucketBytes + LongPieceMemo::memory_for(bytes - buckets * kBucketBytes);
}

bool BulkPieceMemo::append(const std::uint8_t* data, std::size_t size, std::vector<Rank>& out) const {
  if (size > kMaxPiece) return longer_.append(data, size, out);
  const Slot* slot = find(probe(data, size), size);
  if (!slot) return false;
  Rank ids[kMaxIds];
  out.insert(out.end(), ids, ids + unpack(slot, ids));
  return true;
}

BulkPieceMemo::Slot* BulkPieceMemo::room_for(Slot* slots, const Key& key, std::size_t size, bool whole_line) {
  const auto empty = [](const Slot& s) { return size_of(s) == 0; };
  // An empty slot (a piece of up to kSlotIds ids) or line (more), or the piece's own.
  for (std::size_t line = 0; line < 4; line += 2) {
    Slot* s = &slots[line];
    if (whole_line) {
      if (holds(s[0], key, size) || (empty(s[0]) && empty(s[1]))) return s;
    } else if (empty(s[0]) || holds(s[0], key, size)) {
      return s;
    } else if (!takes_line(s[0]) && (empty(s[1]) || holds(s[1], key, size))) {
      return s + 1;
    }
  }
  return nullptr;
}

void BulkPieceMemo::store(const std::uint8_t* data, std::size_t size, const Rank* ids, std::size_t count) {
  if (size > kMaxPiece) {
    longer_.store(data, size, ids, count);
    return;
  }
  if (count == 0 || count > kMaxIds) return;
  // The ids as they will stand, twelve words: a slot's four and the next slot's eight.
  Rank words[kMaxIds] = {};
  for (std::size_t i = 0; i < count; ++i) {
    if (ids[i] > kIdMask) return;
    words[i] = ids[i];
  }
  words[0] |= static_cast<Rank>(size << kIdBits | count << (kIdBits + 5));
  const Key key = key_of(data, size);
  Slot* slots = buckets_[bucket_of(key)].slots;
  const bool whole_line = count > kSlotIds;
  // Where the bucket has no room, its pair's; where neither has, the bucket's own slot or line
  // that the hash's low bits pick, whatever was there.
  Slot* to = room_for(slots, key, size, whole_line);
  if (!to) to = room_for(pair_of(slots), key, size, whole_line);
  if (!to) {
    // In a line of more ids the second slot is the first's: a piece of one slot takes the first
    // and empties the second, whose words a lookup would otherwise read as a slot of their own.
    const std::size_t line = (key.hash & 1) * 2;
    to = &slots[line];
    if (!whole_line && takes_line(*to))
      slots[line + 1] = Slot{};
    else if (!whole_line)
      to += key.hash >> 1 & 1;
  }
  to->key[0] = key.head;
  to->key[1] = key.tail;
  std::memcpy(to->ids, words, sizeof(to->ids));
  if (whole_line) std::memcpy(&to[1], words + kSlotIds, sizeof(Slot));
}

}  // namespace tokenizer
