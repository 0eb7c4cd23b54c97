#pragma once

#include <optional>
#include <string>

#include "attention/attention_problem.hpp"
#include "attention/npy_file.hpp"

namespace attention::cli {

// Q, K, V and the optional mask as read from their files, and the shape they agree on.
struct AttentionInputs {
  NpyArray q, k, v;
  std::optional<NpyArray> mask;
  AttentionShape shape;
};

// Reads the files (NpyError on a bad one) and checks that their shapes fit together: Q
// [B, H, Sq, D], K [B, Hkv, Sk, D], V [B, Hkv, Sk, Dv], mask [Sq, Sk], H a multiple of Hkv.
// Throws std::runtime_error naming the file at fault and both shapes. Limits that do not
// involve two files (zero or too large dimensions) are left to attention::validate.
AttentionInputs load_attention_inputs(const std::string& q_path, const std::string& k_path, const std::string& v_path,
                                      const std::string& mask_path);

}  // namespace attention::cli
