#include "attention_inputs.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace attention::cli {

namespace {

// An input array with what a message needs to name it.
struct NamedArray {
  std::string_view role;  // "Q", "K", "V", "mask"
  const std::string& path;
  const NpyArray& array;
};

void require_rank(const NamedArray& a, std::string_view dimensions) {
  const std::size_t rank = static_cast<std::size_t>(std::count(dimensions.begin(), dimensions.end(), ',')) + 1;
  if (a.array.shape.size() != rank)
    throw std::runtime_error(a.path + ": " + std::string(a.role) + " must be " + std::to_string(rank) + "-d [" +
                             std::string(dimensions) + "], its shape is " + shape_to_string(a.array.shape));
}

[[noreturn]] void throw_mismatch(const NamedArray& a, const NamedArray& b, const std::string& fault) {
  throw std::runtime_error(a.path + ": " + std::string(a.role) + "'s shape " + shape_to_string(a.array.shape) +
                           " does not fit " + std::string(b.role) + "'s shape " + shape_to_string(b.array.shape) +
                           " (" + b.path + "): " + fault);
}

// Axis `a_axis` of `a` and axis `b_axis` of `b` both stand for the dimension `name`.
void require_same(const NamedArray& a, std::size_t a_axis, const NamedArray& b, std::size_t b_axis,
                  std::string_view name) {
  const std::size_t a_size = a.array.shape[a_axis], b_size = b.array.shape[b_axis];
  if (a_size != b_size)
    throw_mismatch(a, b,
                   std::string(a.role) + "'s " + std::string(name) + " is " + std::to_string(a_size) + ", " +
                       std::string(b.role) + "'s is " + std::to_string(b_size));
}

}  // namespace

AttentionInputs load_attention_inputs(const std::string& q_path, const std::string& k_path, const std::string& v_path,
                                      const std::string& mask_path) {
  AttentionInputs inputs{read_npy(q_path),
                         read_npy(k_path),
                         read_npy(v_path),
                         mask_path.empty() ? std::nullopt : std::optional(read_npy(mask_path)),
                         {}};
  const NamedArray q{"Q", q_path, inputs.q}, k{"K", k_path, inputs.k}, v{"V", v_path, inputs.v};
  require_rank(q, "batch, heads, seq_q, head_dim");
  require_rank(k, "batch, kv_heads, seq_k, head_dim");
  require_rank(v, "batch, kv_heads, seq_k, value_dim");
  require_same(k, 0, q, 0, "batch");
  require_same(k, 3, q, 3, "head_dim");
  // A zero kv_heads is validate()'s to report; here it would divide by zero.
  if (k.array.shape[1] != 0 && q.array.shape[1] % k.array.shape[1] != 0)
    throw_mismatch(k, q,
                   "Q's heads (" + std::to_string(q.array.shape[1]) + ") are not a multiple of K's kv_heads (" +
                       std::to_string(k.array.shape[1]) + ")");
  require_same(v, 0, k, 0, "batch");
  require_same(v, 1, k, 1, "kv_heads");
  require_same(v, 2, k, 2, "seq_k");
  if (inputs.mask) {
    const NamedArray mask{"mask", mask_path, *inputs.mask};
    require_rank(mask, "seq_q, seq_k");
    require_same(mask, 0, q, 2, "seq_q");
    require_same(mask, 1, k, 2, "seq_k");
  }
  const std::vector<std::size_t>& qs = inputs.q.shape;
  inputs.shape = {.batch = qs[0],
                  .heads = qs[1],
                  .kv_heads = inputs.k.shape[1],
                  .seq_q = qs[2],
                  .seq_k = inputs.k.shape[2],
                  .head_dim = qs[3],
                  .value_dim = inputs.v.shape[3]};
  return inputs;
}

}  // namespace attention::cli
