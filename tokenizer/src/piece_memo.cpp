#include "piece_memo.hpp"

#include <new>

namespace tokenizer {

PieceMemoPool::PieceMemoPool(std::size_t bytes, std::size_t longer_bytes, std::size_t bulk_bytes, std::size_t memos)
    : bytes_(bytes),
      longer_bytes_(longer_bytes),
      bulk_bytes_(bulk_bytes),
      count_(bytes ? memos : 0),
      slots_(std::make_unique<Slot[]>(count_)) {}

PieceMemoPool::Lease PieceMemoPool::lease() {
  if (count_ == 0) return {};
  static std::atomic<std::size_t> threads{0};
  thread_local const std::size_t first = threads.fetch_add(1, std::memory_order_relaxed);
  for (std::size_t k = 0; k < count_; ++k) {
    Slot& slot = slots_[(first + k) % count_];
    if (slot.leased.load(std::memory_order_relaxed) || slot.leased.exchange(true, std::memory_order_acquire)) continue;
    if (!slot.memo) {
      slot.memo = std::make_unique<PieceMemo>(bytes_, longer_bytes_);
      made_.fetch_add(1, std::memory_order_relaxed);
    }
    return Lease(&slot, this);
  }
  return {};
}

BulkPieceMemo* PieceMemoPool::Lease::bulk() const {
  if (!slot_ || pool_->bulk_bytes_ < BulkPieceMemo::kMinBytes) return nullptr;
  if (!slot_->bulk) {
    // Asked for in the middle of a call: where the kernel refuses the memory, the encoder goes on
    // without it rather than failing the call.
    try {
      slot_->bulk = std::make_unique<BulkPieceMemo>(pool_->bulk_bytes_);
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
    pool_->bulk_made_.fetch_add(1, std::memory_order_relaxed);
  }
  return slot_->bulk.get();
}

}  // namespace tokenizer
