#include "sdpa_bench_inputs.hpp"

#include "attention/flop_count.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <tuple>

namespace benches {

namespace {

bool same_shape(const attention::AttentionShape& a, const attention::AttentionShape& b) {
  return std::tie(a.batch, a.heads, a.kv_heads, a.seq_q, a.seq_k, a.head_dim, a.value_dim) ==
         std::tie(b.batch, b.heads, b.kv_heads, b.seq_q, b.seq_k, b.head_dim, b.value_dim);
}

// Irwin–Hall with four terms: each 16-bit uniform on [0, 1) has mean 1/2 and variance 1/12.
void fill_normalish(std::span<float> values, std::uint32_t seed) {
  std::mt19937 gen(seed);
  const float scale = std::sqrt(3.0f) / 65536.0f;
  for (float& x : values) {
    const std::uint32_t a = gen();
    const std::uint32_t b = gen();
    const std::uint32_t sum = (a & 0xFFFF) + (a >> 16) + (b & 0xFFFF) + (b >> 16);
    x = (static_cast<float>(sum) - 2.0f * 65536.0f) * scale;
  }
}

}  // namespace

attention::AttentionShape sdpa_shape(std::size_t seq, std::size_t dim) {
  return attention::AttentionShape{.batch = kSdpaBatch,
                                   .heads = kSdpaHeads,
                                   .kv_heads = kSdpaHeads,
                                   .seq_q = seq,
                                   .seq_k = seq,
                                   .head_dim = dim,
                                   .value_dim = dim};
}

std::string sdpa_benchmark_name(std::string_view implementation, const attention::AttentionShape& shape, bool causal) {
  const std::string kv_heads = shape.kv_heads == shape.heads ? "" : "/kv_heads:" + std::to_string(shape.kv_heads);
  return "sdpa/" + std::string(implementation) + "/batch:" + std::to_string(shape.batch) +
         "/heads:" + std::to_string(shape.heads) + kv_heads + "/seq_q:" + std::to_string(shape.seq_q) +
         "/seq_k:" + std::to_string(shape.seq_k) + "/dim:" + std::to_string(shape.head_dim) +
         "/causal:" + (causal ? "1" : "0");
}


void set_sdpa_gflops(benchmark::State& state, const attention::AttentionShape& shape,
                     attention::CausalAlignment causal, double peak_gflops) {
  const double gflop = attention::flash_attention_flops(shape, causal) * 1e-9;
  state.counters["GFLOPS"] = benchmark::Counter(gflop, benchmark::Counter::kIsIterationInvariantRate);
  // A rate as well, so that Google Benchmark divides it by the same time.
  state.counters["peak_fraction"] =
      benchmark::Counter(gflop / peak_gflops, benchmark::Counter::kIsIterationInvariantRate);
}

attention::AttentionShape decode_shape(std::size_t batch, std::size_t seq_q, std::size_t seq_k) {
  return attention::AttentionShape{.batch = batch,
                                   .heads = kDecodeHeads,
                                   .kv_heads = kDecodeKvHeads,
                                   .seq_q = seq_q,
                                   .seq_k = seq_k,
                                   .head_dim = kDecodeDim,
                                   .value_dim = kDecodeDim};
}

std::string sdpa_decode_benchmark_name(std::string_view implementation, const attention::AttentionShape& shape) {
  return "sdpa_decode/" + std::string(implementation) + "/batch:" + std::to_string(shape.batch) +
         "/heads:" + std::to_string(shape.heads) + "/kv_heads:" + std::to_string(shape.kv_heads) +
         "/seq_q:" + std::to_string(shape.seq_q) + "/seq_k:" + std::to_string(shape.seq_k) +
         "/dim:" + std::to_string(shape.head_dim);
}

void set_decode_counters(benchmark::State& state, const attention::AttentionShape& shape, double peak_gflops,
                         double memory_gbps, std::size_t element_bytes) {
  const double gflop = attention::visible_key_flops(shape, attention::CausalAlignment::bottom_right) * 1e-9;
  const double gigabytes =
      static_cast<double>(shape.batch * shape.kv_heads * shape.seq_k * (shape.head_dim + shape.value_dim)) *
      static_cast<double>(element_bytes) * 1e-9;
  // Rates, so that Google Benchmark divides them all by the same time.
  const auto rate = [](double per_call) { return benchmark::Counter(per_call, benchmark::Counter::kIsIterationInvariantRate); };
  state.counters["GFLOPS"] = rate(gflop);
  state.counters["peak_fraction"] = rate(gflop / peak_gflops);
  state.counters["GBps"] = rate(gigabytes);
  state.counters["bandwidth_fraction"] = rate(gigabytes / memory_gbps);
}

attention::AttentionProblem SdpaBuffers::problem(attention::CausalAlignment causal) {
  return attention::AttentionProblem{
      .shape = shape, .q = q, .k = k, .v = v, .mask = {}, .causal = causal, .scale = std::nullopt, .out = out};
}

attention::Bf16AttentionProblem SdpaBuffers::bf16_problem(attention::CausalAlignment causal) {
  if (out_bf16.empty()) {
    const auto round = [](const std::vector<float>& from, std::vector<attention::bfloat16>& to) {
      to.resize(from.size());
      attention::to_bfloat16(from, to);
    };
    round(q, q_bf16);
    round(k, k_bf16);
    round(v, v_bf16);
    out_bf16.resize(out.size());
  }
  return attention::Bf16AttentionProblem{.shape = shape,
                                         .q = q_bf16,
                                         .k = k_bf16,
                                         .v = v_bf16,
                                         .mask = {},
                                         .causal = causal,
                                         .scale = std::nullopt,
                                         .out = out_bf16};
}

SdpaBuffers& sdpa_buffers_for(const attention::AttentionShape& shape) {
  static std::optional<SdpaBuffers> buffers;
  if (!buffers || !same_shape(buffers->shape, shape)) {
    // The old buffers go first: the largest shape holds 256 MiB.
    buffers.reset();
    buffers = SdpaBuffers{.shape = shape,
                          .q = std::vector<float>(shape.q_elements()),
                          .k = std::vector<float>(shape.k_elements()),
                          .v = std::vector<float>(shape.v_elements()),
                          .out = std::vector<float>(shape.out_elements())};
    fill_normalish(buffers->q, 1);
    fill_normalish(buffers->k, 2);
    fill_normalish(buffers->v, 3);
  }
  return *buffers;
}

}  // namespace benches
