// The device's float32 FMA rate: every item runs eight independent chains of float8 fused
// multiply-adds, 32 a round (256 lane FMAs). Eight chains hide the FMA latency of GPUs and of a
// CPU's vector units; float8 gives a CPU device whole AVX registers without relying on PoCL to
// vectorise across items (it cannot, around a loop). a and b are arguments, so the compiler cannot
// fold the chains; with |a| < 1 the values stay finite. The sum is stored so that no chain is dead.

#define STEP(x) x = fma(x, a, b)
#define STEP8 STEP(x0); STEP(x1); STEP(x2); STEP(x3); STEP(x4); STEP(x5); STEP(x6); STEP(x7)

__kernel void fma_peak(__global float* out, int rounds, float a, float b) {
  const float8 seed = (float)get_global_id(0) * 1e-9f + (float8)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
  float8 x0 = seed, x1 = seed + 1.0f, x2 = seed + 2.0f, x3 = seed + 3.0f;
  float8 x4 = seed + 4.0f, x5 = seed + 5.0f, x6 = seed + 6.0f, x7 = seed + 7.0f;
  for (int r = 0; r < rounds; ++r) {
    STEP8;
    STEP8;
    STEP8;
    STEP8;
  }
  const float8 sum = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
  const float4 half_sum = sum.lo + sum.hi;
  out[get_global_id(0)] = (half_sum.x + half_sum.y) + (half_sum.z + half_sum.w);
}
