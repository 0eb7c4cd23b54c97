#include "attention/flop_count.hpp"

#include "attention/visible_keys.hpp"

namespace attention {

namespace {

// Flops of one query head's query against one key.
double flops_per_score(const AttentionShape& s) {
  return 2.0 * static_cast<double>(s.head_dim + s.value_dim);
}

}  // namespace

double flash_attention_flops(const AttentionShape& shape, CausalAlignment causal) {
  const double full = flops_per_score(shape) * static_cast<double>(shape.batch * shape.heads) *
                      static_cast<double>(shape.seq_q) * static_cast<double>(shape.seq_k);
  return causal == CausalAlignment::none ? full : full / 2;
}

double visible_key_flops(const AttentionShape& shape, CausalAlignment causal) {
  const KeyWindow window = key_window(shape, causal);
  double scores = 0;
  for (std::size_t i = 0; i < shape.seq_q; ++i) scores += static_cast<double>(visible_keys(window, i));
  return flops_per_score(shape) * static_cast<double>(shape.batch * shape.heads) * scores;
}

}  // namespace attention
