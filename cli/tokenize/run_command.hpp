#pragma once

#include "command_line.hpp"

namespace tokenizer::cli {

// Carries out a parsed command line: prints the usage, encodes or decodes, writing the result
// to standard output. Throws on a runtime fault (a file, the vocabulary, a token id).
void run_command(const CommandLine& command);

}  // namespace tokenizer::cli
