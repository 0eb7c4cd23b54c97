#include "attention/visible_keys.hpp"

namespace attention {

KeyWindow key_window(const AttentionShape& shape, CausalAlignment causal) {
  const auto seq_q = static_cast<std::ptrdiff_t>(shape.seq_q);
  const auto seq_k = static_cast<std::ptrdiff_t>(shape.seq_k);
  switch (causal) {
    case CausalAlignment::top_left: return {1, shape.seq_k};
    case CausalAlignment::bottom_right: return {1 + seq_k - seq_q, shape.seq_k};
    case CausalAlignment::none: break;
  }
  return {seq_k, shape.seq_k};
}

}  // namespace attention
