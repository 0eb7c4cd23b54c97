#include "merge_queue.hpp"

namespace tokenizer {

namespace {

std::size_t slot_of(Rank rank, std::size_t mask) { return (rank * 0x9E3779B1u) & mask; }

}  // namespace

void MergeQueue::clear() {
  for (std::uint32_t i = 0; i < used_; ++i) lists_[i].clear();
  used_ = 0;
  std::fill(index_.begin(), index_.end(), kNone);
  heap_.clear();
  draining_ = kNone;
  cursor_ = 0;
}

std::uint32_t MergeQueue::list_of(Rank rank) {
  if (2 * (used_ + 1) > index_.size()) {  // keep the map at most half full
    index_.assign(index_.empty() ? 64 : 2 * index_.size(), kNone);
    for (std::uint32_t i = 0; i < used_; ++i) {
      std::size_t s = slot_of(ranks_[i], index_.size() - 1);
      while (index_[s] != kNone) s = (s + 1) & (index_.size() - 1);
      index_[s] = i;
    }
  }
  const std::size_t mask = index_.size() - 1;
  std::size_t s = slot_of(rank, mask);
  for (; index_[s] != kNone; s = (s + 1) & mask)
    if (ranks_[index_[s]] == rank) return index_[s];
  if (used_ == lists_.size()) {
    lists_.emplace_back();
    ranks_.push_back(rank);
    queued_.push_back(false);
  } else {
    ranks_[used_] = rank;
    queued_[used_] = false;
  }
  index_[s] = used_;
  return used_++;
}

void MergeQueue::push(Rank rank, std::uint32_t offset) {
  const std::uint32_t i = list_of(rank);
  std::vector<std::uint32_t>& list = lists_[i];
  if (i == draining_) {
    list.insert(std::upper_bound(list.begin() + static_cast<std::ptrdiff_t>(cursor_), list.end(), offset), offset);
    return;
  }
  list.push_back(offset);
  if (!queued_[i]) {
    queued_[i] = true;
    heap_.push_back(rank);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  }
}

bool MergeQueue::pop(Rank& rank, std::uint32_t& offset) {
  for (;;) {
    if (draining_ != kNone) {
      std::vector<std::uint32_t>& list = lists_[draining_];
      if (!heap_.empty() && heap_.front() < ranks_[draining_]) {
        // Preempted by a lower rank: keep the undrained rest for later.
        list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(cursor_));
        queued_[draining_] = true;
        heap_.push_back(ranks_[draining_]);
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        draining_ = kNone;
        continue;
      }
      if (cursor_ < list.size()) {
        rank = ranks_[draining_];
        offset = list[cursor_++];
        return true;
      }
      list.clear();
      draining_ = kNone;
    }
    if (heap_.empty()) return false;
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    const Rank next = heap_.back();
    heap_.pop_back();
    draining_ = list_of(next);
    queued_[draining_] = false;
    cursor_ = 0;
    std::vector<std::uint32_t>& list = lists_[draining_];
    // Offsets usually arrive in order (merges sweep left to right); sort only when they did not.
    if (!std::is_sorted(list.begin(), list.end())) std::sort(list.begin(), list.end());
  }
}

}  // namespace tokenizer
