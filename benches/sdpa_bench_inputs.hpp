#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "attention/attention_problem.hpp"

namespace benches {

// The shapes, inputs and flop count of the sdpa families (sdpa_bench.cpp on the CPU, and any
// other implementation measured on the same shapes), so that their results line up name by name.
// scripts/peers measures PyTorch on the same shapes: change both together.
inline constexpr std::size_t kSdpaBatch = 4;
inline constexpr std::size_t kSdpaHeads = 8;
inline constexpr std::size_t kSdpaSeqLengths[] = {128, 512, 1024, 4096};
inline constexpr std::size_t kSdpaHeadDims[] = {64, 128};

// kSdpaBatch x kSdpaHeads query and key/value heads (no grouping), seq_q = seq_k = seq,
// head_dim = value_dim = dim.
attention::AttentionShape sdpa_shape(std::size_t seq, std::size_t dim);

// sdpa/<implementation>/batch:B/heads:H/seq_q:S/seq_k:T/dim:D/causal:C, with /kv_heads:K after
// heads where K differs from H (Google Benchmark may append /real_time or /manual_time). D is the
// head dimension, which the named shapes share with the value dimension.
std::string sdpa_benchmark_name(std::string_view implementation, const attention::AttentionShape& shape, bool causal);

// Sets the GFLOPS counter (attention::flash_attention_flops per iteration, per second of the benchmark's time)
// and peak_fraction: GFLOPS over `peak_gflops`, the FMA peak of whatever ran the calls.
void set_sdpa_gflops(benchmark::State& state, const attention::AttentionShape& shape,
                     attention::CausalAlignment causal, double peak_gflops);

// The decode shapes (sdpa_decode_bench.cpp): one or a few new queries of 32 heads against a KV
// cache of 8 key/value heads (grouped-query attention as in Llama-style models), head_dim =
// value_dim = 128, bottom-right causal alignment (the KV-cache convention).
inline constexpr std::size_t kDecodeBatches[] = {1, 8};
inline constexpr std::size_t kDecodeQueries[] = {1, 4};
inline constexpr std::size_t kDecodeKeys[] = {1024, 4096, 16384, 65536};
inline constexpr std::size_t kDecodeHeads = 32;
inline constexpr std::size_t kDecodeKvHeads = 8;
inline constexpr std::size_t kDecodeDim = 128;
attention::AttentionShape decode_shape(std::size_t batch, std::size_t seq_q, std::size_t seq_k);

// sdpa_decode/<implementation>/batch:B/heads:H/kv_heads:K/seq_q:Q/seq_k:S/dim:D.
std::string sdpa_decode_benchmark_name(std::string_view implementation, const attention::AttentionShape& shape);

// Sets the counters of a decode benchmark: GFLOPS and peak_fraction as set_sdpa_gflops, but with
// the flops of exactly the keys each query sees under bottom-right alignment
// (attention::visible_key_flops); GBps, the bytes of K and V (each read once per call at least,
// `element_bytes` an element) per second; and bandwidth_fraction, GBps over `memory_gbps`, the
// machine's (or device's) measured bandwidth.
void set_decode_counters(benchmark::State& state, const attention::AttentionShape& shape, double peak_gflops,
                         double memory_gbps, std::size_t element_bytes = sizeof(float));

// Q, K and V of one shape, and room for O, all on the host. Values are unit-variance and roughly
// normal: the sum of four 16-bit uniforms (two per output of std::mt19937, whose sequence the
// standard fixes, unlike a distribution's), centred and scaled; seeds 1, 2, 3 for Q, K, V.
// The bfloat16 copies (rounded to nearest) are made on the first call of bf16_problem.
struct SdpaBuffers {
  attention::AttentionShape shape;
  std::vector<float> q, k, v, out;
  std::vector<attention::bfloat16> q_bf16 = {}, k_bf16 = {}, v_bf16 = {}, out_bf16 = {};

  // The problem over these buffers: no mask, the default scale, output into `out`.
  attention::AttentionProblem problem(attention::CausalAlignment causal);
  // The same over the bfloat16 copies, output into `out_bf16`.
  attention::Bf16AttentionProblem bf16_problem(attention::CausalAlignment causal);
  // problem() or bf16_problem(), by element type.
  template <class Element>
  attention::BasicAttentionProblem<Element> problem_of(attention::CausalAlignment causal) {
    if constexpr (std::is_same_v<Element, attention::bfloat16>)
      return bf16_problem(causal);
    else
      return problem(causal);
  }
};

// The buffers of `shape`. Google Benchmark calls a benchmark's function once per trial iteration
// count, and filling the largest shape takes a fraction of a second: the buffers of the last shape
// are kept while the shape stays the same, so they are filled once per benchmark and shared by
// consecutive benchmarks of one shape. The reference stays valid until a call with another shape.
SdpaBuffers& sdpa_buffers_for(const attention::AttentionShape& shape);

}  // namespace benches
