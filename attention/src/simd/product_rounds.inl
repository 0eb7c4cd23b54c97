// The body of a per-ISA probe of how fast this ISA's kernels take products, included by
// flash_kernel.inl in its translation unit and namespaces (Floats, multiply_add). Where AVX512-BF16
// is there, a round is a vdpbf16ps on each of kProductChains independent accumulators (two
// products a lane); else an FMA on each (one product a lane, as the float kernels and the widening
// bfloat16 kernels take them). Its callers time it: flash_isas.cpp, to choose the bfloat16
// kernels, and build/benches, whose calibration/fma_peak and bf16_peak are these chains on every
// thread. No clock here, whose standard-library inline functions would be compiled for this ISA.

namespace attention::simd::ATTENTION_SIMD_NAMESPACE {

namespace {

// Independent chains in flight. A core starts two FMAs a cycle, each with a latency of four cycles
// (Zen 4; Intel since Skylake), so eight chains keep both pipes busy; twelve leave room for the
// loop's own instructions and still fit AVX2's 16 vector registers beside the two operands.
constexpr std::size_t kProductChains = 12;

#if defined(ATTENTION_SIMD_TILES)
// With AMX tiles, a round is a tdpbf16ps on each of four tile accumulators (0 to 3), 16 x 16 lanes
// of 32 products each, from tiles 4 to 7: four independent chains, as the kernels' scores keep.
constexpr std::size_t kTileChains = 4;

std::uint64_t products_per_round() { return kTileChains * 16 * 16 * 32; }

float run_product_rounds(std::uint64_t rounds, float seed) {
  const auto bits_of = [](float x) { return static_cast<std::uint16_t>(__builtin_bit_cast(std::uint32_t, x) >> 16); };
  alignas(64) std::uint16_t a[16 * 32], b[16 * 32];
  for (std::uint16_t& x : a) x = bits_of(1.0f / 4096.0f);
  for (std::uint16_t& x : b) x = bits_of(seed);
  const TileScope tiles;
  _tile_loadd(4, a, 64);
  _tile_loadd(5, a, 64);
  _tile_loadd(6, b, 64);
  _tile_loadd(7, b, 64);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (std::uint64_t r = 0; r < rounds; ++r) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  alignas(64) float sums[kTileChains][16 * 16];
  _tile_stored(0, sums[0], 64);
  _tile_stored(1, sums[1], 64);
  _tile_stored(2, sums[2], 64);
  _tile_stored(3, sums[3], 64);
  float total = 0;
  for (const auto& tile : sums)
    for (const float lane : tile) total += lane;
  return total;
}
#else
std::uint64_t products_per_round() {
#if defined(__AVX512BF16__)
  return 2 * kWidth * kProductChains;
#else
  return kWidth * kProductChains;
#endif
}

// `rounds` rounds from `seed` (of order one); returns a sum of the accumulators so that no round
// is optimised away. Each round adds products 2^-12 x seed (seed cut to bfloat16 for vdpbf16ps):
// normal floats that grow by at most 2^-9 a round for seeds up to 8, far from overflowing in any
// count of rounds a calibration takes, and the compiler cannot know them.
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
#endif

}  // namespace

}  // namespace attention::simd::ATTENTION_SIMD_NAMESPACE
