// Prepended to every SDPA program.
//
// Layouts (row-major, contiguous): Q [batch*heads][seq_q][head_dim], K [batch*kv_heads][seq_k][head_dim],
// V [batch*kv_heads][seq_k][value_dim], O [batch*heads][seq_q][value_dim], optional additive mask
// [seq_q][seq_k] shared by every head. Query head bh (= b * heads + h) reads key/value head
// bh / group, group = heads / kv_heads: since heads = kv_heads * group, that is b * kv_heads + h / group.
// Offsets are computed in ulong: a tensor may have more than 2^31 elements even when every
// dimension fits an int.

// Keys [0, visible_key_end) are visible to `query`, as attention::visible_keys defines it: the host
// passes attention::KeyWindow::offset (1 top-left, 1 + seq_k - seq_q bottom-right, seq_k none).
inline int visible_key_end(int query, int key_offset, int seq_k) {
  return clamp(query + key_offset, 0, seq_k);
}

// The shift an online softmax subtracts before exponentiating: the running maximum, or 0 while
// every score so far is -inf, so that exp(-inf - shift) is 0 instead of exp(-inf + inf) = NaN.
inline float softmax_shift(float running_max) {
  return running_max == -INFINITY ? 0.0f : running_max;
}
