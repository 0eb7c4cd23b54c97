#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cli_support/usage_error.hpp"

#include "attention/attention_problem.hpp"
#include "attention/implementation_registry.hpp"

namespace attention::cli {

using cli_support::UsageError;

// The element type of the computation (--dtype); the files are float32 either way.
enum class ElementType { float32, bfloat16 };

// What the arguments ask for, already validated: the four required files are named, the scale
// is positive and finite, and the implementation is registered, supported on this CPU and of the
// element type asked for. Files are not touched while parsing.
struct CommandLine {
  bool help = false;
  bool list = false;
  std::string q, k, v, out;
  std::string mask;  // empty: no additive mask
  CausalAlignment causal = CausalAlignment::none;
  std::optional<float> scale;  // nullopt: 1 / sqrt(head_dim)
  ElementType dtype = ElementType::float32;
  // Exactly one is set after parsing (but with help or list): the one of `dtype`.
  const Implementation* implementation = nullptr;
  const Bf16Implementation* bf16_implementation = nullptr;
};

// Throws UsageError naming the faulty argument. `args` excludes the program name.
CommandLine parse_command_line(std::span<const std::string_view> args);

// The text --help prints.
std::string usage_text();

// The text --list prints: one line per implementation, its name first.
std::string implementation_list_text();

}  // namespace attention::cli
