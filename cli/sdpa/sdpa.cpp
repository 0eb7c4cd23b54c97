// sdpa: scaled dot-product attention over NumPy .npy files; see usage_text().
#include "cli_support/program_main.hpp"
#include "command_line.hpp"
#include "run_command.hpp"

int main(int argc, char** argv) {
  return cli_support::run_program("sdpa", argc, argv, [](std::span<const std::string_view> args) {
    attention::cli::run_command(attention::cli::parse_command_line(args));
  });
}
