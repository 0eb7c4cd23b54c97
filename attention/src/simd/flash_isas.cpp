#include <xsimd/config/xsimd_cpuid.hpp>

#include <iterator>

#include "flash_kernels.hpp"

namespace attention::simd {

namespace {

// The avx512f kernels are compiled with AVX2 and FMA as well, so they need all three.
bool has_avx512f() {
  const auto cpu = xsimd::available_architectures();
  return cpu.avx512f && cpu.fma3_avx2;
}
bool has_avx2_fma() { return xsimd::available_architectures().fma3_avx2; }
bool always() { return true; }

constexpr FlashIsa kIsas[] = {
    {"avx512f", has_avx512f, &avx512f::kFlashKernels},
    {"avx2", has_avx2_fma, &avx2::kFlashKernels},
    {"sse2", always, &sse2::kFlashKernels},
};

}  // namespace

std::span<const FlashIsa> all_flash_isas() { return kIsas; }

const FlashIsa& best_flash_isa() {
  static const FlashIsa& best = []() -> const FlashIsa& {
    for (const FlashIsa& isa : kIsas)
      if (isa.is_supported()) return isa;
    return kIsas[std::size(kIsas) - 1];
  }();
  return best;
}

}  // namespace attention::simd
