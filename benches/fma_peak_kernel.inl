// The body of a per-ISA FMA throughput kernel. Included by fma_peak_<isa>.cpp after defining
//   BENCHES_FMA_ARCH       the xsimd architecture (xsimd::avx512f, xsimd::fma3<xsimd::avx2>, xsimd::sse2)
//   BENCHES_FMA_NAMESPACE  the namespace its entry points live in
// and compiled with that ISA's flags. Compiled with AVX512-BF16, its chains are of vdpbf16ps
// instead: the bfloat16 dot-product peak, each of 16 lanes two products and two additions.
// Everything here has internal linkage, an ISA-specific name or is a template of this
// architecture, so the linker cannot pick a copy compiled for a wider ISA for code that runs on a
// narrower one.

#include <xsimd/xsimd.hpp>

#include <cstdint>

namespace benches::fma_peak::BENCHES_FMA_NAMESPACE {

namespace {

using Vector = xsimd::batch<float, BENCHES_FMA_ARCH>;

// Independent chains of FMAs in flight. A core starts two FMAs a cycle, each with a latency of
// four cycles (Zen 4; Intel since Skylake), so eight chains keep both pipes busy; twelve leave
// room for the loop's own instructions and still fit AVX2's 16 vector registers beside the two
// operands.
constexpr int kChains = 12;

// The branch is chosen by the flags this file is compiled with.
inline Vector fused_multiply_add(Vector a, Vector b, Vector c) {
#if defined(__AVX512F__)
  // xsimd 8.1 has no AVX-512 fma: its generic one is a multiply and an add.
  return _mm512_fmadd_ps(a, b, c);
#else
  // One fused instruction with FMA3; without it (sse2), a multiply and an add: two flops alike.
  return xsimd::fma(a, b, c);
#endif
}

// The chains' lanes added up, lane by lane: xsimd 8.1's AVX-512F hadd needs AVX-512DQ.
float sum_of(const Vector (&chains)[kChains]) {
  Vector sum = chains[0];
  for (int i = 1; i < kChains; ++i) sum += chains[i];
  alignas(64) float lanes[Vector::size];
  sum.store_aligned(lanes);
  float total = 0;
  for (float lane : lanes) total += lane;
  return total;
}

}  // namespace

#if defined(__AVX512BF16__)
std::uint64_t flops_per_round() { return 4 * kChains * Vector::size; }

float run_rounds(std::uint64_t rounds, float seed) {
  // Each round adds two products 2^-12 x seed' (seed' = seed cut to bfloat16) to every lane:
  // normal floats, growing by at most 2^-8 a round for seeds below 8, and the compiler cannot
  // know them.
  const auto pairs_of = [](float x) {
    return (__m512bh)_mm512_set1_epi16(static_cast<short>(__builtin_bit_cast(std::uint32_t, x) >> 16));
  };
  const __m512bh multiplier = pairs_of(1.0f / 4096.0f);
  const __m512bh multiplicand = pairs_of(seed);
  Vector chains[kChains];
  for (int i = 0; i < kChains; ++i) chains[i] = Vector(seed + static_cast<float>(i));
  for (std::uint64_t round = 0; round < rounds; ++round) {
    for (int i = 0; i < kChains; ++i) chains[i] = _mm512_dpbf16_ps(chains[i], multiplier, multiplicand);
  }
  return sum_of(chains);
}
#else
std::uint64_t flops_per_round() { return 2 * kChains * Vector::size; }

float run_rounds(std::uint64_t rounds, float seed) {
  // x <- 0.75 x + 0.25 seed converges to seed: the values stay normal (no subnormal slow path,
  // no overflow) for any seed of order one, and the compiler cannot know them.
  const Vector multiplier(0.75f);
  const Vector addend(0.25f * seed);
  Vector chains[kChains];
  for (int i = 0; i < kChains; ++i) chains[i] = Vector(seed + static_cast<float>(i));
  for (std::uint64_t round = 0; round < rounds; ++round) {
    for (int i = 0; i < kChains; ++i) chains[i] = fused_multiply_add(chains[i], multiplier, addend);
  }
  return sum_of(chains);
}
#endif

}  // namespace benches::fma_peak::BENCHES_FMA_NAMESPACE
