#pragma once

#include <cstdio>
#include <exception>
#include <span>
#include <string_view>
#include <vector>

#include "cli_support/usage_error.hpp"

namespace cli_support {

inline constexpr int kExitSuccess = 0;
inline constexpr int kExitRuntimeError = 1;
inline constexpr int kExitUsageError = 2;

// The body of a program's main(): runs `command` on the arguments after the program name. A
// UsageError exits with 2 and any other exception with 1, each reported on stderr as
// "PROGRAM: message"; nothing escapes to std::terminate.
template <class Command>
int run_program(const char* program, int argc, char** argv, Command command) {
  const auto report = [program](const char* message) { std::fprintf(stderr, "%s: %s\n", program, message); };
  try {
    const std::vector<std::string_view> args(argv + 1, argv + argc);
    command(std::span<const std::string_view>(args));
    return kExitSuccess;
  } catch (const UsageError& error) {
    report(error.what());
    return kExitUsageError;
  } catch (const std::exception& error) {
    report(error.what());
    return kExitRuntimeError;
  } catch (...) {
    report("unexpected error");
    return kExitRuntimeError;
  }
}

}  // namespace cli_support
