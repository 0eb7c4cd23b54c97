#include "run_command.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "attention/attention_problem.hpp"
#include "attention/npy_file.hpp"
#include "attention_inputs.hpp"

namespace attention::cli {

namespace {

void write_stdout(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw std::runtime_error(std::string("write error: ") + std::strerror(errno));
}

std::string bytes_text(std::size_t bytes) {
  char gib[32];
  std::snprintf(gib, sizeof gib, "%.1f GiB", static_cast<double>(bytes) / double(1 << 30));
  return std::to_string(bytes) + " bytes (" + gib + ")";
}

// The bytes this process may allocate at most: the machine's physical memory, or the
// address-space limit (ulimit -v) where that is lower.
std::size_t usable_memory_bytes() {
  std::size_t bytes = std::numeric_limits<std::size_t>::max();
  const long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_bytes > 0) bytes = static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_bytes);
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < bytes)
    bytes = static_cast<std::size_t>(limit.rlim_cur);
  return bytes;
}

// Refuses a run whose output and workspace could not be held in memory, before any of it is
// allocated: header-only .npy files can claim any shape, and zero-filling a claimed 8 GiB output
// once took 17 s before the zero seq_k was even reported.
void require_memory_for(const AttentionShape& shape, const Implementation& implementation) {
  std::size_t bytes = 0;
  const std::size_t out_bytes = shape.out_elements() * sizeof(float);  // exact after validate_shape
  const bool overflow = __builtin_add_overflow(out_bytes, implementation.workspace_bytes(shape), &bytes);
  const std::size_t usable = usable_memory_bytes();
  if (overflow || bytes > usable)
    throw std::runtime_error("the output and " + std::string(implementation.name) + "'s workspace need " +
                             (overflow ? std::string("more bytes than size_t counts") : bytes_text(bytes)) +
                             ", more than the " + bytes_text(usable) +
                             " this process may use (physical memory, or ulimit -v if lower)");
}

std::vector<float> allocate_output(const AttentionShape& shape) {
  try {
    return std::vector<float>(shape.out_elements());
  } catch (const std::bad_alloc&) {
    throw std::runtime_error("cannot allocate the output's " + bytes_text(shape.out_elements() * sizeof(float)));
  }
}

void compute(const CommandLine& command) {
  const AttentionInputs inputs = load_attention_inputs(command.q, command.k, command.v, command.mask);
  const AttentionShape& shape = inputs.shape;
  validate_shape(shape);
  require_memory_for(shape, *command.implementation);
  std::vector<float> out = allocate_output(shape);
  AttentionProblem problem{.shape = shape,
                           .q = inputs.q.values,
                           .k = inputs.k.values,
                           .v = inputs.v.values,
                           .mask = inputs.mask ? std::span<const float>(inputs.mask->values) : std::span<const float>(),
                           .causal = command.causal,
                           .scale = command.scale,
                           .out = out};
  // Every error but a full disk comes before the run, which may take minutes (the reference at
  // long sequences): the problem's (the implementation validates it again), then the output path's.
  validate(problem);
  check_npy_destination(command.out);
  command.implementation->run(problem);
  // Only now is --out written, and write_npy replaces it whole or not at all.
  const std::array<std::size_t, 4> out_shape{shape.batch, shape.heads, shape.seq_q, shape.value_dim};
  write_npy(command.out, out_shape, out);
}

}  // namespace

void run_command(const CommandLine& command) {
  if (command.help)
    write_stdout(usage_text());
  else if (command.list)
    write_stdout(implementation_list_text());
  else
    compute(command);
}

}  // namespace attention::cli
