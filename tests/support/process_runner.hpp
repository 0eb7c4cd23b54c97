#pragma once

// Runs a program as a child process with given standard input, capturing its standard output
// and error byte for byte, and its exit status.

#include <string>
#include <utility>
#include <vector>

namespace tokenizer::test {

struct ProcessResult {
  // The exit status, or 128 + the signal number if a signal ended the process (as shells do).
  int exit_code = -1;
  std::string out;
  std::string err;
};

struct ProcessSpec {
  std::string program;
  std::vector<std::string> args;  // without the program name
  std::string stdin_bytes;
  // Variables set (or replaced) in the child's environment, which is otherwise this process's.
  std::vector<std::pair<std::string, std::string>> env;
};

// Throws std::runtime_error if the process cannot be started.
ProcessResult run_process(const ProcessSpec& spec);

// The lines of a program's output, without their newlines.
std::vector<std::string> lines_of(const std::string& output);

}  // namespace tokenizer::test
