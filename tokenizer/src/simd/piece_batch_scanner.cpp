#include "piece_batch_scanner.hpp"

#include <xsimd/config/xsimd_cpuid.hpp>

#include <iterator>

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
#undef TOKENIZER_DECLARE_SCANNERS

namespace {

bool has_avx512bw() {
  // xsimd's avx512bw target also assumes AVX-512 F, CD and DQ.
  const auto cpu = xsimd::available_architectures();
  return cpu.avx512bw && cpu.avx512dq && cpu.avx512cd && cpu.avx512f;
}
bool has_avx2() { return xsimd::available_architectures().avx2; }
bool always() { return true; }

constexpr PieceBatchScanners kScanners[] = {
    {"avx512bw", has_avx512bw, avx512bw::scan_pieces_r50k, avx512bw::scan_pieces_cl100k, avx512bw::scan_pieces_o200k},
    {"avx2", has_avx2, avx2::scan_pieces_r50k, avx2::scan_pieces_cl100k, avx2::scan_pieces_o200k},
    {"sse2", always, sse2::scan_pieces_r50k, sse2::scan_pieces_cl100k, sse2::scan_pieces_o200k},
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
  static const PieceBatchScanners& best = [] () -> const PieceBatchScanners& {
    for (const PieceBatchScanners& s : kScanners)
      if (s.is_supported()) return s;
    return kScanners[std::size(kScanners) - 1];
  }();
  return best;
}

}  // namespace tokenizer::simd
