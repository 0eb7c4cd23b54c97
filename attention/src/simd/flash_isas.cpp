#include "flash_kernels.hpp"

namespace attention::simd {

namespace {

constexpr FlashIsa kIsas[] = {
    {isa::Isa::avx512f, &avx512f::kFlashKernels},
    {isa::Isa::avx2, &avx2::kFlashKernels},
    {isa::Isa::sse2, &sse2::kFlashKernels},
};

}  // namespace

std::span<const FlashIsa> all_flash_isas() { return kIsas; }

const FlashIsa& best_flash_isa() {
  static const FlashIsa& best = isa::widest_usable(all_flash_isas());
  return best;
}

}  // namespace attention::simd
