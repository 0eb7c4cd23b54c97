#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "attention/attention_problem.hpp"

namespace attention {

// One way of computing SDPA on Q, K, V and O of type Element. Every float implementation agrees
// with `reference` within float32 tolerances (atol 1e-5, rtol 5e-6 for outputs of order one on
// the CPU); every bfloat16 one with the float reference of its bfloat16 inputs within twice the
// error of a plain bfloat16 implementation (docs/sdpa.md).
// Non-finite values, in every implementation as in PyTorch: a query whose visible scores hold a
// NaN (from Q, K or the mask) or a +inf outputs a row of NaN; one whose visible keys are all
// masked with -inf outputs zeros; keys a causal limit hides are not looked at.
template <class Element>
struct BasicImplementation {
  std::string_view name;
  std::string_view description;
  // Whether this machine can run it.
  bool (*is_supported)();
  // Bytes of scratch memory a call with this shape allocates, all of it before any tile loop.
  std::size_t (*workspace_bytes)(const AttentionShape& shape);
  // Validates `problem` (std::invalid_argument) and writes problem.out.
  void (*run)(const BasicAttentionProblem<Element>& problem);
};

using Implementation = BasicImplementation<float>;
using Bf16Implementation = BasicImplementation<bfloat16>;

// Every CPU implementation of this library, simplest first.
std::span<const Implementation> cpu_implementations();
// nullptr if none has this name.
const Implementation* find_cpu_implementation(std::string_view name);
// The one to use when the caller does not choose: flash, fast on every shape (decode is faster
// only where a few queries of each key/value head meet many keys).
const Implementation& default_cpu_implementation();

// Every bfloat16 CPU implementation, simplest first: reference_bf16, flash_bf16, decode_bf16.
std::span<const Bf16Implementation> cpu_bf16_implementations();
// nullptr if none has this name.
const Bf16Implementation* find_cpu_bf16_implementation(std::string_view name);
// flash_bf16.
const Bf16Implementation& default_cpu_bf16_implementation();

// Scores materialised, softmax and accumulation in double: the oracle.
void sdpa_reference(const AttentionProblem& problem);
// Tiled with an online softmax; never materialises seq_q x seq_k. SIMD kernels chosen at run
// time, oneTBB over batch x heads x query tiles.
void sdpa_flash(const AttentionProblem& problem);
// Flash-Decoding, for a few queries against many keys: oneTBB over batch x key/value heads x
// ranges of keys, each task reading every key and value row of its range once for all the query
// rows that share them (grouped-query heads and their queries); per-range max and sum combined
// exactly. Any problem, but its tasks hold all of a group's query rows: seq_q x heads / kv_heads
// rows of scores and outputs, so many queries are flash's work.
void sdpa_decode(const AttentionProblem& problem);
// The reference on bfloat16: the inputs widened to float (exactly), sdpa_reference, the output
// rounded to bfloat16.
void sdpa_reference_bf16(const Bf16AttentionProblem& problem);
// sdpa_flash on bfloat16: scores, softmax and sums in float; the weights rounded to bfloat16
// before P V where the products are of bfloat16 (AVX512-BF16), else K and V widened to float a
// tile at a time (AVX-512F, AVX2+FMA, SSE2).
void sdpa_flash_bf16(const Bf16AttentionProblem& problem);
// sdpa_decode on bfloat16: the float task on K and V widened a block of keys at a time (decoding
// streams K and V: half the bytes of float), the output rounded to bfloat16.
void sdpa_decode_bf16(const Bf16AttentionProblem& problem);

}  // namespace attention
