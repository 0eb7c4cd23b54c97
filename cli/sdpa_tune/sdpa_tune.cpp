// sdpa_tune: picks the tunable OpenCL kernels' parameters for the present device; see usage_text().
#include <cstdio>

#include "cli_support/program_main.hpp"
#include "tune_command_line.hpp"
#include "tune_run.hpp"

int main(int argc, char** argv) {
  return cli_support::run_program("sdpa_tune", argc, argv, [](std::span<const std::string_view> args) {
    const sdpa_tune::TuneOptions options = sdpa_tune::parse_tune_command_line(args);
    if (options.help) {
      std::fputs(sdpa_tune::usage_text().c_str(), stdout);
      return;
    }
    sdpa_tune::run_tune(options);
  });
}
