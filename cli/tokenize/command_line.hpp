#pragma once

#include <span>
#include <string>
#include <string_view>

#include "cli_support/usage_error.hpp"

#include "id_format.hpp"
#include "tokenizer/encoder_registry.hpp"

namespace tokenizer::cli {

using cli_support::UsageError;

inline constexpr std::string_view kDefaultEncoding = "cl100k_base";
inline constexpr std::string_view kStdinName = "-";

// What the arguments ask for, already validated: the encoding name is a built-in one and the
// encoder is registered and supported on this CPU. Files are not touched while parsing.
struct CommandLine {
  bool help = false;
  bool list = false;  // --list: print the encoders
  std::string encoding{kDefaultEncoding};  // used when vocab_file is empty
  std::string vocab_file;
  const Encoder* encoder = nullptr;  // never null after parsing, but with help or list
  bool allow_special = false;
  IdFormat format = IdFormat::text;
  bool decode = false;
  std::string input{kStdinName};  // a path, or "-" for stdin
};

// Throws UsageError naming the faulty argument. `args` excludes the program name.
CommandLine parse_command_line(std::span<const std::string_view> args);

// The text --help prints.
std::string usage_text();

// The text --list prints: every registered encoder, one a line, name first.
std::string encoder_list_text();

}  // namespace tokenizer::cli
