#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "attention/bfloat16.hpp"

namespace attention {

// Which keys a query may see, besides the additive mask.
enum class CausalAlignment {
  none,
  // Query i sees keys 0..i (PyTorch's is_causal).
  top_left,
  // The last query sees every key: query i sees keys 0..i + (seq_k - seq_q) (FlashAttention, the
  // convention of a KV cache). Queries with i + seq_k - seq_q < 0 see no key and output zeros.
  bottom_right,
};

// "none", "top-left", "bottom-right"; nullopt for anything else.
std::optional<CausalAlignment> parse_causal_alignment(std::string_view text);
std::string_view to_string(CausalAlignment alignment);

// Dimensions of one SDPA call. Q is [batch, heads, seq_q, head_dim], K is
// [batch, kv_heads, seq_k, head_dim], V is [batch, kv_heads, seq_k, value_dim], O is
// [batch, heads, seq_q, value_dim], all contiguous row-major. Query head h reads key/value head
// h / (heads / kv_heads) (grouped-query attention).
struct AttentionShape {
  std::size_t batch = 1;
  std::size_t heads = 1;
  std::size_t kv_heads = 1;
  std::size_t seq_q = 1;
  std::size_t seq_k = 1;
  std::size_t head_dim = 64;
  std::size_t value_dim = 64;

  std::size_t q_elements() const { return batch * heads * seq_q * head_dim; }
  std::size_t k_elements() const { return batch * kv_heads * seq_k * head_dim; }
  std::size_t v_elements() const { return batch * kv_heads * seq_k * value_dim; }
  std::size_t out_elements() const { return batch * heads * seq_q * value_dim; }
  std::size_t mask_elements() const { return seq_q * seq_k; }
};

inline constexpr std::size_t kMaxHeadDim = 256;

// 1 / sqrt(head_dim): the scale of a problem that gives none.
float default_scale(const AttentionShape& shape);

// One forward SDPA call: O = softmax(scale * Q Kᵀ + mask, restricted by `causal`) V, with Q, K, V
// and O of type Element (float, or bfloat16 whose scores, softmax and sums are float32).
// Spans carry their sizes so that validate() can prove every access in bounds.
template <class Element>
struct BasicAttentionProblem {
  AttentionShape shape;
  std::span<const Element> q;
  std::span<const Element> k;
  std::span<const Element> v;
  // Additive [seq_q, seq_k], broadcast over batch and heads; empty for none. -inf masks a key.
  // Float32 whatever Element is.
  std::span<const float> mask;
  CausalAlignment causal = CausalAlignment::none;
  // Defaults to 1 / sqrt(head_dim).
  std::optional<float> scale;
  std::span<Element> out;

  float effective_scale() const { return scale.value_or(default_scale(shape)); }
};

using AttentionProblem = BasicAttentionProblem<float>;
using Bf16AttentionProblem = BasicAttentionProblem<bfloat16>;

// Throws std::invalid_argument naming the first fault of the shape alone: a zero dimension, heads
// not a multiple of kv_heads, head_dim or value_dim above kMaxHeadDim, a tensor whose bytes
// overflow size_t. After it, every *_elements() and its bytes are exact. A caller that allocates
// buffers for a shape calls it first.
void validate_shape(const AttentionShape& shape);

// Throws std::invalid_argument naming the first fault: a zero dimension, heads not a multiple of
// kv_heads, head_dim or value_dim above kMaxHeadDim, a span whose size is not the shape's, a
// non-finite or non-positive scale... Every implementation calls it first.
void validate(const AttentionProblem& problem);
void validate(const Bf16AttentionProblem& problem);

}  // namespace attention
