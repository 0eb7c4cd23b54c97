#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention_problem.hpp"
#include "gpu/opencl_kernel.hpp"
#include "gpu/opencl_runtime.hpp"

namespace gpu {

// The shape of opencl_cpu's work (gpu/kernels/cpu_sdpa.cl): each work-item owns query_rows
// consecutive queries, each row two AVX registers of scores per block of 16 keys, so that the
// rows are the independent FMA chains in flight; more rows, more reuse of each key block, more
// registers.
struct CpuSdpaParameters {
  std::size_t query_rows = 4;

  // "query_rows=4", as tuning files hold them.
  std::string to_string() const;

  friend bool operator==(const CpuSdpaParameters&, const CpuSdpaParameters&) = default;
};

// Why the kernel cannot run with `parameters` (query_rows not 1 to 8), or "" when it can.
std::string cpu_parameters_problem(const CpuSdpaParameters& parameters);

// Every usable combination the tuner sweeps, the default (4 rows) first.
std::vector<CpuSdpaParameters> cpu_parameter_candidates();

// The parameters opencl_cpu uses for `shape` on the runtime's device: its tuning file's entry
// (opencl_tuning.hpp), else the default.
CpuSdpaParameters chosen_cpu_parameters(const OpenClRuntime& runtime, const attention::AttentionShape& shape);

// opencl_cpu prepared with the given parameters. std::invalid_argument when
// cpu_parameters_problem() objects to them.
std::unique_ptr<PreparedSdpa> prepare_cpu_sdpa(OpenClRuntime& runtime, const attention::AttentionShape& shape,
                                               const CpuSdpaParameters& parameters);

}  // namespace gpu
