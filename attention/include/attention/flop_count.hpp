#pragma once

#include "attention/attention_problem.hpp"

namespace attention {

// FlashAttention's count of the flops of one call: 2·batch·heads·seq_q·seq_k·(head_dim +
// value_dim), Q Kᵀ and P V at two flops per multiply-add (the softmax is not counted), halved
// for any causal alignment. What GFLOPS means in the sdpa benchmarks and the tuner.
double flash_attention_flops(const AttentionShape& shape, CausalAlignment causal);

// The same count over exactly the keys each query sees under `causal` (visible_keys.hpp): what
// GFLOPS means in the decode benchmarks, whose few queries see nearly every key.
double visible_key_flops(const AttentionShape& shape, CausalAlignment causal);

}  // namespace attention
