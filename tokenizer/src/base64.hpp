#pragma once

#include <string>
#include <string_view>

namespace tokenizer {

// Standard base64 (RFC 4648 alphabet, '=' padding required to a multiple of 4 characters).
// Replaces `out` with the decoded bytes; false on any other character, bad padding or non-zero
// pad bits. `out` is a caller's buffer so that decoding many short strings does not allocate.
bool decode_base64(std::string_view text, std::string& out);

}  // namespace tokenizer
