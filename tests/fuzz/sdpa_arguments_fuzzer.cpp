// Any command line of sdpa, parsed in process: a UsageError naming the fault, or a command whose
// files are named, whose scale is positive and finite, and whose implementation is set and
// supported; parsing touches no file.
#include <cmath>

#include "arguments.hpp"
#include "command_line.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::vector<std::string_view> args = fuzz::arguments_of(bytes, size);
  try {
    const attention::cli::CommandLine command = attention::cli::parse_command_line(args);
    if (command.help || command.list) return 0;
    fuzz::require(command.implementation != nullptr, "the implementation is set");
    fuzz::require(!command.q.empty() && !command.k.empty() && !command.v.empty() && !command.out.empty(),
                  "the four files are named");
    fuzz::require(!command.scale || (std::isfinite(*command.scale) && *command.scale > 0),
                  "the scale is positive and finite");
  } catch (const attention::cli::UsageError& error) {
    fuzz::require(std::string_view(error.what()).size() > 0, "a usage error has a message");
  }
  return 0;
}
