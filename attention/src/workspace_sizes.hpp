#pragma once

#include <cstddef>

#include "attention/attention_problem.hpp"

namespace attention {

// Bytes of scratch memory one call of each implementation allocates (Implementation::workspace_bytes).
std::size_t reference_workspace_bytes(const AttentionShape& shape);
std::size_t flash_workspace_bytes(const AttentionShape& shape);
std::size_t decode_workspace_bytes(const AttentionShape& shape);
std::size_t reference_bf16_workspace_bytes(const AttentionShape& shape);
std::size_t flash_bf16_workspace_bytes(const AttentionShape& shape);
std::size_t decode_bf16_workspace_bytes(const AttentionShape& shape);

}  // namespace attention
