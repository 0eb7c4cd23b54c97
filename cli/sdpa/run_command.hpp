#pragma once

#include "command_line.hpp"

namespace attention::cli {

// Carries out a parsed command line: prints the usage or the implementations, or computes O and
// writes it to the --out file. Throws on a runtime fault (a file, the shapes).
void run_command(const CommandLine& command);

}  // namespace attention::cli
