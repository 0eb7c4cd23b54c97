#include "piece_batch_scanner.hpp"

namespace tokenizer::simd {

// The entry points of each per-ISA translation unit (piece_scan_<isa>.cpp).
#define TOKENIZER_DECLARE_SCANNERS(isa)                                                                       \
  namespace isa {                                                                                             \
  std::size_t scan_pieces_r50k(const std::uint8_t*, std::size_t, std::size_t, std::size_t*, std::size_t);   \
  std::size_t scan_pieces_cl100k(const std::uint8_t*, std::size_t, std::size_t, std::size_t*, std::size_t); \
  std::size_t scan_pieces_o200k(const std::uint8_t*, std::size_t, std::size_t, std::size_t*, std::size_t);  \
  }
TOKENIZER_DECLARE_SCANNERS(sse2)
TOKENIZER_DECLARE_SCANNERS(avx2)
TOKENIZER_DECLARE_SCANNERS(avx512bw)
TOKENIZER_DECLARE_SCANNERS(avx512vbmi2)
#undef TOKENIZER_DECLARE_SCANNERS

namespace {

constexpr PieceBatchScanners kScanners[] = {
    {isa::Isa::avx512vbmi2, avx512vbmi2::scan_pieces_r50k, avx512vbmi2::scan_pieces_cl100k, avx512vbmi2::scan_pieces_o200k},
    {isa::Isa::avx512bw, avx512bw::scan_pieces_r50k, avx512bw::scan_pieces_cl100k, avx512bw::scan_pieces_o200k},
    {isa::Isa::avx2, avx2::scan_pieces_r50k, avx2::scan_pieces_cl100k, avx2::scan_pieces_o200k},
    {isa::Isa::sse2, sse2::scan_pieces_r50k, sse2::scan_pieces_cl100k, sse2::scan_pieces_o200k},
};
}  // namespace

ScanPiecesFn PieceBatchScanners::for_kind(PatternKind kind) const {
  switch (kind) {
    case PatternKind::r50k: return r50k;
    case PatternKind::cl100k: return cl100k;
    case PatternKind::o200k: return o200k;
    case PatternKind::regex: break;
  }
  return nullptr;
}

std::span<const PieceBatchScanners> all_piece_batch_scanners() { return kScanners; }

const PieceBatchScanners& best_piece_batch_scanners() {
  static const PieceBatchScanners& best = isa::widest_usable(all_piece_batch_scanners());
  return best;
}

}  // namespace tokenizer::simd
