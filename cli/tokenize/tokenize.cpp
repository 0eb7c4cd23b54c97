// tokenize: encodes text into token ids or decodes ids back into text; see usage_text().
#include "cli_support/program_main.hpp"
#include "command_line.hpp"
#include "run_command.hpp"

int main(int argc, char** argv) {
  return cli_support::run_program("tokenize", argc, argv, [](std::span<const std::string_view> args) {
    tokenizer::cli::run_command(tokenizer::cli::parse_command_line(args));
  });
}
