#pragma once

#include <cstddef>

#include "attention/attention_problem.hpp"

namespace attention {

// The causal restriction of a call in one number, the one definition of which keys a query sees
// (the OpenCL kernels take the same offset): query i sees keys [0, visible_keys(i)) with
// visible_keys(i) = clamp(i + offset, 0, seq_k). The offset is 1 for top-left, 1 + seq_k - seq_q
// for bottom-right and seq_k (so that the clamp always yields seq_k) for none.
struct KeyWindow {
  std::ptrdiff_t offset;
  std::size_t seq_k;
};

KeyWindow key_window(const AttentionShape& shape, CausalAlignment causal);

namespace {

// Internal linkage on purpose: the per-ISA kernels include this header too, and an inline
// function shared between translation units compiled for different ISAs could be resolved by
// the linker to the widest ISA's copy.
inline std::size_t visible_keys(const KeyWindow& window, std::size_t query) {
  const std::ptrdiff_t end = static_cast<std::ptrdiff_t>(query) + window.offset;
  if (end <= 0) return 0;
  const std::size_t visible = static_cast<std::size_t>(end);
  return visible < window.seq_k ? visible : window.seq_k;
}

}  // namespace

}  // namespace attention
