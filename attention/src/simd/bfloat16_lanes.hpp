#pragma once

#include <xsimd/xsimd.hpp>

#include <cstdint>

namespace attention::simd {

// to_bfloat16 (attention/bfloat16.hpp) of every lane of `x` at once, for any xsimd architecture:
// the same integer steps on the float's bits (round to nearest, ties to even; a NaN made quiet),
// each lane's bfloat16 in its low 16 bits. The shifts are arithmetic, which fills the high half of
// a negative lane; the low half, which alone is kept, is the scalar conversion's. Always inlined:
// each kernel's copy is compiled for its own instruction set.
template <class Arch>
[[gnu::always_inline]] inline xsimd::batch<std::int32_t, Arch> bfloat16_lanes(xsimd::batch<float, Arch> x) {
  using Bits = xsimd::batch<std::int32_t, Arch>;
  const Bits bits = xsimd::bitwise_cast<Bits>(x);
  const Bits rounded = (bits + Bits(0x7fff) + ((bits >> 16) & Bits(1))) >> 16;
  const Bits quiet_nan = (bits >> 16) | Bits(0x0040);
  return xsimd::select((bits & Bits(0x7fffffff)) > Bits(0x7f800000), quiet_nan, rounded);
}

}  // namespace attention::simd
