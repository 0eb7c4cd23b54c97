#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tokenizer {

// One bit per position of a piece, all clear after reset(). Pieces up to kSmallPositions use a
// vector; longer ones use anonymous memory mapped for them, whose pages stay untouched (so not
// resident) until a bit in them is set, and which madvise(MADV_DONTNEED) clears again by
// dropping the pages. A 256 MiB piece of one letter sets few bits: it then costs almost no
// memory beyond its own bytes, where a cleared vector cost 32 MiB (one bit per byte). set() does
// nothing but set the bit: the mapping is cleared before each piece that uses it again.
class PositionBits {
 public:
  static constexpr std::size_t kSmallPositions = std::size_t{1} << 18;

  PositionBits() = default;
  ~PositionBits();
  PositionBits(const PositionBits&) = delete;
  PositionBits& operator=(const PositionBits&) = delete;

  // Clears positions [0, positions). Throws std::bad_alloc if the mapping fails.
  void reset(std::size_t positions) {
    if (positions > kSmallPositions) return reset_mapped(positions);
    small_.assign(positions / 64 + 1, 0);
    words_ = small_.data();
  }
  bool test(std::size_t p) const { return (words_[p / 64] >> (p % 64) & 1) != 0; }
  void set(std::size_t p) { words_[p / 64] |= std::uint64_t{1} << (p % 64); }

 private:
  void reset_mapped(std::size_t positions);

  std::uint64_t* words_ = nullptr;
  std::vector<std::uint64_t> small_;
  std::uint64_t* mapped_ = nullptr;
  std::size_t mapped_bytes_ = 0;
  bool mapped_used_ = false;  // a piece used the mapping since it was last cleared
};

}  // namespace tokenizer
