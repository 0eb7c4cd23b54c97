// The body of a per-ISA probe of how fast bfloat16 products go, included by flash_kernel.inl in
// its translation unit and namespaces (Floats, multiply_add). Where AVX512-BF16 is there, a round
// is a vdpbf16ps on each of kProductChains independent accumulators (two products a lane); else
// an FMA on each (one product a lane, as the widening kernels take them). The caller times it
// (flash_isas.cpp): no clock here, whose standard-library inline functions would be compiled for
// this ISA.

namespace attention::simd::ATTENTION_SIMD_NAMESPACE {

namespace {

// Enough chains to keep two pipes of four cycles' latency busy, with registers to spare on AVX2.
constexpr std::size_t kProductChains = 12;

std::uint64_t products_per_round() {
#if defined(__AVX512BF16__)
  return 2 * kWidth * kProductChains;
#else
  return kWidth * kProductChains;
#endif
}

// `rounds` rounds; returns a sum of the accumulators so that none is optimised away. The
// operands are small enough that no accumulator overflows in any count of rounds a probe takes.
float run_product_rounds(std::uint64_t rounds, float seed) {
#if defined(__AVX512BF16__)
  const auto pairs_of = [](float x) {
    return (__m512bh)_mm512_set1_epi16(static_cast<short>(__builtin_bit_cast(std::uint32_t, x) >> 16));
  };
  const __m512bh a = pairs_of(1.0f / 4096.0f), b = pairs_of(seed);
  __m512 acc[kProductChains];
  for (__m512& x : acc) x = _mm512_setzero_ps();
  for (std::uint64_t r = 0; r < rounds; ++r)
    for (__m512& x : acc) x = _mm512_dpbf16_ps(x, a, b);
  __m512 sum = acc[0];
  for (std::size_t c = 1; c < kProductChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  return _mm512_reduce_add_ps(sum);
#else
  const Floats a(1.0f / 4096.0f), b(seed);
  Floats acc[kProductChains];
  for (Floats& x : acc) x = Floats(0.0f);
  for (std::uint64_t r = 0; r < rounds; ++r)
    for (Floats& x : acc) x = multiply_add(a, b, x);
  Floats sum = acc[0];
  for (std::size_t c = 1; c < kProductChains; ++c) sum += acc[c];
  alignas(64) float lanes[kWidth];
  sum.store_aligned(lanes);
  float total = 0;
  for (const float lane : lanes) total += lane;
  return total;
#endif
}

}  // namespace

}  // namespace attention::simd::ATTENTION_SIMD_NAMESPACE
