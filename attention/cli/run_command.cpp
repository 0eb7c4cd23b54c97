#include "run_command.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "attention/attention_problem.hpp"
#include "attention/npy_file.hpp"
#include "attention_inputs.hpp"

namespace attention::cli {

namespace {

void write_stdout(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw std::runtime_error(std::string("write error: ") + std::strerror(errno));
}

void compute(const CommandLine& command) {
  const AttentionInputs inputs = load_attention_inputs(command.q, command.k, command.v, command.mask);
  const AttentionShape& shape = inputs.shape;
  std::vector<float> out(shape.out_elements());
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
