// Any command line of tokenize, parsed in process: a UsageError naming the fault, or a command
// whose encoder is set and supported (unless it asks for --help or --list, which end parsing);
// parsing touches no file.
#include "arguments.hpp"
#include "command_line.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::vector<std::string_view> args = fuzz::arguments_of(bytes, size);
  try {
    const tokenizer::cli::CommandLine command = tokenizer::cli::parse_command_line(args);
    if (command.help || command.list) return 0;
    fuzz::require(command.encoder != nullptr && command.encoder->is_supported(), "the encoder is set and supported");
    fuzz::require(!command.input.empty(), "an input is named");
  } catch (const tokenizer::cli::UsageError& error) {
    fuzz::require(std::string_view(error.what()).size() > 0, "a usage error has a message");
  }
  return 0;
}
