// sdpa: scaled dot-product attention over NumPy .npy files; see usage_text().
#include <cstdio>
#include <exception>
#include <string_view>
#include <vector>

#include "command_line.hpp"
#include "run_command.hpp"

namespace {

constexpr int kExitRuntimeError = 1;
constexpr int kExitUsageError = 2;

void report(const char* message) { std::fprintf(stderr, "sdpa: %s\n", message); }

}  // namespace

int main(int argc, char** argv) {
  using namespace attention::cli;
  try {
    const std::vector<std::string_view> args(argv + 1, argv + argc);
    run_command(parse_command_line(args));
    return 0;
  } catch (const UsageError& e) {
    report(e.what());
    return kExitUsageError;
  } catch (const std::exception& e) {
    report(e.what());
    return kExitRuntimeError;
  } catch (...) {
    report("unexpected error");
    return kExitRuntimeError;
  }
}
