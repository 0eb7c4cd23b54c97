#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "isa/isa.hpp"
#include "tokenizer/pretokenizer.hpp"

namespace tokenizer::simd {

// Scans up to `max_pieces` pieces of the chain that starts at `pos` (pos < size) and writes
// their ends to `ends`; returns how many (at least one). Exactly the pieces of the scalar
// scanner for the same pattern: ASCII runs are classified 16, 32 or 64 bytes at a time, and
// anything that needs Unicode properties is handed to the scalar scanner.
// The scanners classify text in windows of this many bytes; the last bytes of a text (all of a
// shorter one) are read as a window padded past the text's end.
inline constexpr std::size_t kWindowBytes = 64;

// Pieces the simd encoders ask a scanner for at a time. A call classifies the window at its
// first piece afresh and drops what is left of its last one, so a call per 16 pieces (about 70
// bytes of English) classified most bytes twice; 256 a call classifies most bytes once, for
// 2 KiB of piece ends.
inline constexpr std::size_t kBatchPieces = 256;

using ScanPiecesFn = std::size_t (*)(const std::uint8_t* text, std::size_t size, std::size_t pos, std::size_t* ends,
                                     std::size_t max_pieces);

// One instruction set's scanners, one per scanner-backed pattern.
struct PieceBatchScanners {
  isa::Isa isa;
  ScanPiecesFn r50k, cl100k, o200k;

  // nullptr for PatternKind::regex.
  ScanPiecesFn for_kind(PatternKind kind) const;
};

// Every compiled instruction set, widest first: avx512vbmi2, avx512bw, avx2, sse2 (the x86-64
// baseline).
std::span<const PieceBatchScanners> all_piece_batch_scanners();
// The widest one this CPU supports within TOKBENCH_MAX_ISA (isa::widest_usable), chosen once.
const PieceBatchScanners& best_piece_batch_scanners();

}  // namespace tokenizer::simd
