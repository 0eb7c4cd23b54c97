#include "huge_piece_cache.hpp"

#include <algorithm>

namespace tokenizer {

std::vector<HugePieceCache::Record>::iterator HugePieceCache::find(std::string_view piece) {
  return std::find_if(records_.begin(), records_.end(), [&](const Record& r) { return r.bytes == piece; });
}

bool HugePieceCache::append(std::string_view piece, std::vector<Rank>& out) {
  const std::lock_guard lock(mutex_);
  const auto record = find(piece);
  if (record == records_.end()) return false;
  record->last_use = ++uses_;
  out.insert(out.end(), record->ids.begin(), record->ids.end());
  return true;
}

void HugePieceCache::store(std::string_view piece, std::span<const Rank> ids) {
  const std::size_t memory = memory_of(piece.size(), ids.size());
  if (memory > bound_) return;
  const std::lock_guard lock(mutex_);
  if (find(piece) != records_.end()) return;  // another thread stored it first
  while (used_ + memory > bound_) {
    const auto oldest = std::min_element(records_.begin(), records_.end(),
                                         [](const Record& a, const Record& b) { return a.last_use < b.last_use; });
    used_ -= memory_of(oldest->bytes.size(), oldest->ids.size());
    records_.erase(oldest);
  }
  records_.push_back({std::string(piece), std::vector<Rank>(ids.begin(), ids.end()), ++uses_});
  used_ += memory;
}

std::size_t HugePieceCache::memory_bytes() const {
  const std::lock_guard lock(mutex_);
  return used_;
}

}  // namespace tokenizer
