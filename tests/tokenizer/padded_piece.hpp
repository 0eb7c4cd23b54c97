#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tokenizer::test {

// A piece as the batch scanner hands it over: with 8 readable bytes after its start, here garbage
// that must not count (the memos read past a piece's end and mask).
struct PaddedPiece {
  explicit PaddedPiece(const std::string& piece) : bytes(piece + "\xAA\xBB\xCC\xDD\xEE\xFF\x11\x22"), size(piece.size()) {}
  const std::uint8_t* data() const { return reinterpret_cast<const std::uint8_t*>(bytes.data()); }
  std::string bytes;
  std::size_t size;
};

}  // namespace tokenizer::test
