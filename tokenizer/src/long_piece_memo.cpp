#include "long_piece_memo.hpp"

#include <bit>
#include <cstring>

#include "tokenizer/rank_table.hpp"

namespace tokenizer {

namespace {

constexpr std::size_t kSlotBytes = 16;
constexpr std::size_t kWordBytes = sizeof(std::uint32_t);

// The slots of a memo of `bytes`: an eighth of it, a power of two.
std::size_t slots_for(std::size_t bytes) {
  if (bytes < LongPieceMemo::kMinBytes) return 0;
  return std::bit_floor(bytes / 8 / kSlotBytes);
}

// The arena's words beside `slots` slots.
std::size_t arena_words_for(std::size_t bytes, std::size_t slots) {
  return slots == 0 ? 0 : (bytes - slots * kSlotBytes) / kWordBytes;
}

}  // namespace

LongPieceMemo::LongPieceMemo(std::size_t bytes)
    : slot_count_(slots_for(bytes)), arena_words_(arena_words_for(bytes, slot_count_)) {
  static_assert(sizeof(Slot) == kSlotBytes);
  if (slot_count_ == 0) return;
  slots_ = std::make_unique<Slot[]>(slot_count_);
  arena_ = std::make_unique_for_overwrite<std::uint32_t[]>(arena_words_);
}

std::size_t LongPieceMemo::memory_for(std::size_t bytes) {
  const std::size_t slots = slots_for(bytes);
  return slots * kSlotBytes + arena_words_for(bytes, slots) * kWordBytes;
}

// Eight bytes at a time, the last eight overlapping the ones before (a piece here has more than
// 8 bytes), each word multiplied in; then the size.
std::uint64_t LongPieceMemo::hash(const std::uint8_t* data, std::size_t size) {
  constexpr std::uint64_t kMix = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = size * 0xC2B2AE3D27D4EB4Full;
  std::size_t i = 0;
  for (; i + 8 < size; i += 8) h = (h ^ RankTable::load_head(data + i, 8)) * kMix;
  h = (h ^ RankTable::load_head(data + size - 8, 8)) * kMix;
  return (h ^ h >> 29) | 1;
}

bool LongPieceMemo::append(const std::uint8_t* data, std::size_t size, std::vector<Rank>& out) const {
  if (!keeps(record_words(size, 1))) return false;
  const std::uint64_t h = hash(data, size);
  for (std::size_t s = home(h);; s = (s + 1) & (slot_count_ - 1)) {
    const Slot& slot = slots_[s];
    if (slot.hash == 0) return false;
    if (slot.hash != h || slot.size != size) continue;
    const std::uint32_t* record = arena_.get() + slot.offset;
    const std::uint32_t count = record[0];
    if (std::memcmp(record + 1 + count, data, size) != 0) continue;
    out.insert(out.end(), record + 1, record + 1 + count);
    return true;
  }
}

void LongPieceMemo::store(const std::uint8_t* data, std::size_t size, const Rank* ids, std::size_t count) {
  const std::size_t words = record_words(size, count);
  if (!keeps(words)) return;
  if (used_words_ + words > arena_words_ || 2 * (records_ + 1) > slot_count_) forget_everything();
  const std::uint64_t h = hash(data, size);
  std::size_t s = home(h);
  while (slots_[s].hash != 0) s = (s + 1) & (slot_count_ - 1);
  std::uint32_t* record = arena_.get() + used_words_;
  record[0] = static_cast<std::uint32_t>(count);
  std::memcpy(record + 1, ids, count * sizeof(Rank));
  std::memcpy(record + 1 + count, data, size);
  slots_[s] = Slot{h, static_cast<std::uint32_t>(size), static_cast<std::uint32_t>(used_words_)};
  used_words_ += words;
  ++records_;
}

void LongPieceMemo::forget_everything() {
  std::memset(static_cast<void*>(slots_.get()), 0, slot_count_ * sizeof(Slot));
  used_words_ = 0;
  records_ = 0;
}

}  // namespace tokenizer
