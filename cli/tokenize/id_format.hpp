#pragma once

#include <cstdio>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tokenizer/rank.hpp"

namespace tokenizer::cli {

// How token ids are written (after encoding) and read (before decoding).
//   text:  decimal ids separated by single spaces, then a newline; read back as any
//          whitespace-separated decimal ids.
//   u32:   each id as a little-endian uint32, nothing else.
//   count: the number of ids and a newline; write-only.
enum class IdFormat { text, u32, count };

std::optional<IdFormat> parse_id_format(std::string_view name);

// Writes `ids` to `out` through a fixed-size buffer, so the output never needs a second copy of
// the ids in memory. Throws std::runtime_error on a write error.
void write_ids(std::span<const Rank> ids, IdFormat format, std::FILE* out);

// Parses ids written in `format` (text or u32). Throws std::runtime_error naming a malformed
// number and its position, or a u32 input whose size is not a multiple of 4.
std::vector<Rank> read_ids(std::string_view bytes, IdFormat format);

}  // namespace tokenizer::cli
