#include "tokenizer/rank_table.hpp"

#include <stdexcept>
#include <string>

namespace tokenizer {

void RankTable::reserve(std::size_t count, std::size_t total_bytes) {
  bytes_.reserve(total_bytes);
  spans_.reserve(count);
  std::size_t capacity = 16;
  while (capacity < 2 * count) capacity *= 2;
  if (capacity <= slots_.size()) return;
  std::vector<Slot, HugePageAllocator<Slot>> old = std::move(slots_);
  std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>> old_tails = std::move(tails_);
  slots_.assign(capacity, Slot{0, 0, kNoRank});
  tails_.assign(capacity, 0);
  mask_ = capacity - 1;
  for (std::size_t j = 0; j < old.size(); ++j) {
    const Slot& s = old[j];
    if (s.rank == kNoRank) continue;
    std::size_t i = hash(s.head, reinterpret_cast<const std::uint8_t*>(bytes_.data()) + spans_[s.rank].offset, s.size) & mask_;
    while (slots_[i].rank != kNoRank) i = (i + 1) & mask_;
    slots_[i] = s;
    tails_[i] = old_tails[j];
  }
}

void RankTable::grow() { reserve(slots_.size(), bytes_.size()); }

bool RankTable::insert(std::string_view token, Rank rank) {
  if (token.empty()) throw std::invalid_argument("empty token");
  if (rank > kMaxRank) throw std::invalid_argument("rank " + std::to_string(rank) + " above kMaxRank");
  const auto* data = reinterpret_cast<const std::uint8_t*>(token.data());
  const std::size_t size = token.size();
  if (find(data, size) != kNoRank) return false;
  if (size <= 2) {
    small_ranks_[small_index(load_head(data, size), size)] = rank;
  } else if (size <= 4) {
    insert_short(load_head(data, size), size, rank);
  } else {
    insert_long(data, size, rank);
  }
  if (rank >= spans_.size()) spans_.resize(static_cast<std::size_t>(rank) + 1, Span{0, 0});
  spans_[rank] = Span{static_cast<std::uint32_t>(bytes_.size()), static_cast<std::uint32_t>(size)};
  bytes_.append(token);
  if (size >= 3) add_to_filter(data, size);
  ++count_;
  if (size > max_token_size_) max_token_size_ = size;
  return true;
}

void RankTable::insert_long(const std::uint8_t* data, std::size_t size, Rank rank) {
  if (2 * (long_count_ + 1) > slots_.size()) grow();
  const std::uint64_t head = load_head(data, size);
  std::size_t i = hash(head, data, size) & mask_;
  while (slots_[i].rank != kNoRank) i = (i + 1) & mask_;
  slots_[i] = Slot{head, static_cast<std::uint32_t>(size), rank};
  if (size > 8) tails_[i] = load64(data + size - 8);
  ++long_count_;
}

void RankTable::insert_short(std::uint64_t head, std::size_t size, Rank rank) {
  if (2 * (short_count_ + 1) > short_slots_.size()) {
    std::vector<std::uint64_t> old = std::move(short_slots_);
    short_slots_.assign(old.empty() ? 1024 : 2 * old.size(), kShortEmpty);
    short_mask_ = short_slots_.size() - 1;
    for (const std::uint64_t e : old) {
      if (e == kShortEmpty) continue;
      std::size_t i = short_slot(e & 0xFF'FFFF'FFFFull) & short_mask_;
      while (short_slots_[i] != kShortEmpty) i = (i + 1) & short_mask_;
      short_slots_[i] = e;
    }
  }
  const std::uint64_t key = short_key(head, size);
  std::size_t i = short_slot(key) & short_mask_;
  while (short_slots_[i] != kShortEmpty) i = (i + 1) & short_mask_;
  short_slots_[i] = key | std::uint64_t{rank} << 40;
  ++short_count_;
}

void RankTable::add_to_filter(const std::uint8_t* data, std::size_t size) {
  // The keys of 3 bytes or more are exactly those of the two hash tables.
  if ((short_count_ + long_count_) * kFilterBitsPerKey > filter_.size() * 64) {
    // Twice the words, refilled from every key in the arena (this one included): amortised
    // constant work per insert, like the tables' growth.
    const std::size_t words = filter_.empty() ? 16 : 2 * filter_.size();
    filter_.assign(words, 0);
    filter_shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(words));
    for (const Span& s : spans_)
      if (s.size >= 3) set_filter_bits(reinterpret_cast<const std::uint8_t*>(bytes_.data()) + s.offset, s.size);
    return;
  }
  set_filter_bits(data, size);
}

}  // namespace tokenizer
