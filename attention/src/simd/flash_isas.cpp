#include "flash_kernels.hpp"

namespace attention::simd {

namespace {

constexpr FlashIsa kIsas[] = {
    {isa::Isa::avx512f, &avx512f::kFlashKernels},
    {isa::Isa::avx2, &avx2::kFlashKernels},
    {isa::Isa::sse2, &sse2::kFlashKernels},
};

constexpr Bf16FlashIsa kBf16Isas[] = {
    {isa::Isa::avx512bf16, &avx512bf16::kBf16FlashKernels},
    {isa::Isa::avx512f, &avx512f::kBf16FlashKernels},
    {isa::Isa::avx2, &avx2::kBf16FlashKernels},
    {isa::Isa::sse2, &sse2::kBf16FlashKernels},
};

}  // namespace

std::span<const FlashIsa> all_flash_isas() { return kIsas; }

const FlashIsa& best_flash_isa() {
  static const FlashIsa& best = isa::widest_usable(all_flash_isas());
  return best;
}

std::span<const Bf16FlashIsa> all_bf16_flash_isas() { return kBf16Isas; }

const Bf16FlashIsa& best_bf16_flash_isa() {
  static const Bf16FlashIsa& best = isa::widest_usable(all_bf16_flash_isas());
  return best;
}

}  // namespace attention::simd
