#pragma once

#include <cstdint>
#include <span>

namespace attention {

// bfloat16: the top 16 bits of an IEEE float32 (sign, the 8 exponent bits, 7 mantissa bits), so
// it spans float's range with 8 bits of precision.
struct bfloat16 {
  std::uint16_t bits;

  friend bool operator==(bfloat16, bfloat16) = default;
};

// The float nearest to `value`, ties to even, as PyTorch's and the AVX512-BF16 conversions round
// (without their flushing of subnormals to zero: subnormals round like every other value). Values
// beyond bfloat16's largest finite one round to an infinity, as float's do; a NaN stays a NaN of
// the same sign, made quiet.
// Both conversions are always inlined and use no standard-library function, so that the per-ISA
// kernels may call them: a function the linker could share between code compiled for different
// instruction sets might run AVX-512 code on a CPU without it.
[[gnu::always_inline]] inline bfloat16 to_bfloat16(float value) {
  const auto bits = __builtin_bit_cast(std::uint32_t, value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return bfloat16{static_cast<std::uint16_t>((bits >> 16) | 0x0040u)};
  // Adding 0x7fff rounds the discarded half up when it exceeds one half; the low kept bit adds
  // the last one needed to round a tie up exactly when that bit is odd.
  const std::uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
  return bfloat16{static_cast<std::uint16_t>(rounded >> 16)};
}

// Exact: every bfloat16 is a float.
[[gnu::always_inline]] inline float to_float(bfloat16 value) {
  return __builtin_bit_cast(float, static_cast<std::uint32_t>(value.bits) << 16);
}

// to_bfloat16 and to_float of every element; the spans have the same size.
void to_bfloat16(std::span<const float> from, std::span<bfloat16> to);
void to_float(std::span<const bfloat16> from, std::span<float> to);

}  // namespace attention
