#include "flash_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attention::simd {

namespace {

constexpr FlashIsa kIsas[] = {
    {isa::Isa::avx512f, &avx512f::kFlashKernels},
    {isa::Isa::avx2, &avx2::kFlashKernels},
    {isa::Isa::sse2, &sse2::kFlashKernels},
};

constexpr Bf16FlashIsa kBf16Isas[] = {
    {isa::Isa::amxbf16, &amxbf16::kBf16FlashKernels},
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

const Bf16FlashIsa& bf16_flash_isa(isa::Isa level) {
  return *std::find_if(std::begin(kBf16Isas), std::end(kBf16Isas), [&](const Bf16FlashIsa& e) { return e.isa == level; });
}

namespace {

// Products a nanosecond of each kernel's probe on this thread, the best of kRuns runs of about 0.1
// ms each taken in turns, so that a moment when the VM is slow, or the core still wakes up to
// AVX-512, weighs on neither more than the other.
bool pairs_faster(const Bf16FlashKernels& pairs, const Bf16FlashKernels& widened) {
  constexpr int kRuns = 7;
  constexpr std::uint64_t kRounds = std::uint64_t{1} << 13;
  const auto rate = [](const Bf16FlashKernels& k) {
    const auto start = std::chrono::steady_clock::now();
    volatile float sink = k.run_product_rounds(kRounds, 1.0f);
    static_cast<void>(sink);
    const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
    return static_cast<double>(k.products_per_round() * kRounds) / elapsed.count();
  };
  double best_pairs = 0, best_widened = 0;
  for (int run = 0; run < kRuns; ++run) {
    best_pairs = std::max(best_pairs, rate(pairs));
    best_widened = std::max(best_widened, rate(widened));
  }
  return best_pairs >= kPairsMargin * best_widened;
}

// TOKBENCH_BF16_PAIRS=1 or 0 in place of the probe: a CPU whose two ways come out near the margin
// could choose one in a process and the other in the next, and their bfloat16 outputs differ in
// rounding; pinned, they are the same in every process.
std::optional<bool> pinned_bf16_pairs() {
  const char* value = std::getenv("TOKBENCH_BF16_PAIRS");
  if (value == nullptr || *value == '\0') return std::nullopt;
  if (std::string_view(value) == "1") return true;
  if (std::string_view(value) == "0") return false;
  throw std::invalid_argument("TOKBENCH_BF16_PAIRS=" + std::string(value) +
                              ": not 1 (vdpbf16ps) nor 0 (widened to float)");
}

}  // namespace

bool bfloat16_pairs_pay_off() {
  static const bool pays = [] {
    const std::optional<bool> pinned = pinned_bf16_pairs();
    if (!isa::is_usable(isa::Isa::avx512bf16)) return false;
    if (pinned) return *pinned;
    return pairs_faster(*bf16_flash_isa(isa::Isa::avx512bf16).kernels, *bf16_flash_isa(isa::Isa::avx512f).kernels);
  }();
  return pays;
}

const Bf16FlashIsa& best_bf16_flash_isa() {
  static const Bf16FlashIsa& best = [&]() -> const Bf16FlashIsa& {
    const Bf16FlashIsa& widest = isa::widest_usable(all_bf16_flash_isas());
    return widest.isa != isa::Isa::avx512bf16 || bfloat16_pairs_pay_off() ? widest : bf16_flash_isa(isa::Isa::avx512f);
  }();
  return best;
}

}  // namespace attention::simd
