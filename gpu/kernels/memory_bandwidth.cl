// The device's global-memory read bandwidth: the items read `vectors` float4s between them and
// each stores one sum, so that no load is dead code. The host defines CONTIGUOUS: 0 on GPUs, where
// consecutive items read consecutive vectors (coalesced); 1 on CPU devices, where each item reads
// one contiguous stretch (a CPU runs a work-group's items one after another: interleaved, every
// item would walk the whole buffer).

__kernel void memory_read(__global const float4* in, ulong vectors, __global float* out) {
  const ulong items = get_global_size(0);
  const ulong item = get_global_id(0);
  float4 sum = 0.0f;
#if CONTIGUOUS
  const ulong per_item = (vectors + items - 1) / items;
  const ulong end = min(vectors, (item + 1) * per_item);
  for (ulong i = item * per_item; i < end; ++i) sum += in[i];
#else
  for (ulong i = item; i < vectors; i += items) sum += in[i];
#endif
  out[item] = (sum.x + sum.y) + (sum.z + sum.w);
}
