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
#include "attention/bfloat16.hpp"
#include "attention/implementation_registry.hpp"
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

// Refuses a run whose buffers could not be held in memory, before any of them is allocated:
// header-only .npy files can claim any shape, and zero-filling a claimed 8 GiB output once took
// 17 s before the zero seq_k was even reported. `buffers` are the bytes the run allocates besides
// the implementation's workspace (exact after validate_shape, as element counts times at most 4).
void require_memory_for(std::size_t buffers, std::string_view implementation, std::size_t workspace) {
  std::size_t bytes = 0;
  const bool overflow = __builtin_add_overflow(buffers, workspace, &bytes);
  const std::size_t usable = usable_memory_bytes();
  if (overflow || bytes > usable)
    throw std::runtime_error("the output and " + std::string(implementation) + "'s workspace need " +
                             (overflow ? std::string("more bytes than size_t counts") : bytes_text(bytes)) +
                             ", more than the " + bytes_text(usable) +
                             " this process may use (physical memory, or ulimit -v if lower)");
}

template <class Element>
std::vector<Element> allocate(std::size_t count, const char* what) {
  try {
    return std::vector<Element>(count);
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(std::string("cannot allocate ") + what + "'s " + bytes_text(count * sizeof(Element)));
  }
}

// The inputs rounded to bfloat16, the output's room, and the problem over them.
struct Bf16Buffers {
  std::vector<bfloat16> q, k, v, out;

  static std::vector<bfloat16> rounded(const std::vector<float>& values, const char* what) {
    std::vector<bfloat16> narrow = allocate<bfloat16>(values.size(), what);
    to_bfloat16(values, narrow);
    return narrow;
  }
  explicit Bf16Buffers(const AttentionInputs& inputs)
      : q(rounded(inputs.q.values, "Q")),
        k(rounded(inputs.k.values, "K")),
        v(rounded(inputs.v.values, "V")),
        out(allocate<bfloat16>(inputs.shape.out_elements(), "the output")) {}
};

void compute(const CommandLine& command) {
  const AttentionInputs inputs = load_attention_inputs(command.q, command.k, command.v, command.mask);
  const AttentionShape& shape = inputs.shape;
  validate_shape(shape);
  const bool bf16 = command.dtype == ElementType::bfloat16;
  // The float32 output (written out); with bf16, the rounded copies of Q, K, V and O as well.
  const std::size_t buffers =
      shape.out_elements() * sizeof(float) +
      (bf16 ? (shape.q_elements() + shape.k_elements() + shape.v_elements() + shape.out_elements()) * sizeof(bfloat16)
            : 0);
  if (bf16)
    require_memory_for(buffers, command.bf16_implementation->name, command.bf16_implementation->workspace_bytes(shape));
  else
    require_memory_for(buffers, command.implementation->name, command.implementation->workspace_bytes(shape));
  std::vector<float> out = allocate<float>(shape.out_elements(), "the output");
  const std::span<const float> mask =
      inputs.mask ? std::span<const float>(inputs.mask->values) : std::span<const float>();
  const AttentionProblem problem{.shape = shape,
                                 .q = inputs.q.values,
                                 .k = inputs.k.values,
                                 .v = inputs.v.values,
                                 .mask = mask,
                                 .causal = command.causal,
                                 .scale = command.scale,
                                 .out = out};
  // Every error but a full disk comes before the run, which may take minutes (the reference at
  // long sequences): the problem's (the implementation validates it again), then the output path's.
  validate(problem);
  check_npy_destination(command.out);
  if (bf16) {
    Bf16Buffers rounded(inputs);
    command.bf16_implementation->run(
        {shape, rounded.q, rounded.k, rounded.v, mask, command.causal, command.scale, rounded.out});
    to_float(rounded.out, out);
  } else {
    command.implementation->run(problem);
  }
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
