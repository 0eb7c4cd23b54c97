#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gpu/cpu_sdpa.hpp"
#include "gpu/mma_sdpa.hpp"
#include "gpu/opencl_device.hpp"
#include "gpu/tiled_sdpa_parameters.hpp"

namespace gpu {

// The parameters of one tunable kernel: opencl_tiled's, opencl_mma's or opencl_cpu's.
using KernelParameters = std::variant<TiledSdpaParameters, MmaSdpaParameters, CpuSdpaParameters>;

// "opencl_tiled", "opencl_mma" or "opencl_cpu": the kernel `parameters` are for.
std::string_view tuned_kernel_name(const KernelParameters& parameters);

// One line of a tuning file: the best parameters the tuner found for one kernel and one pair of
// dimensions on one device.
struct TuningEntry {
  std::size_t head_dim = 0;
  std::size_t value_dim = 0;
  KernelParameters parameters;
};

// A device's tuning file: one entry per line, the kernel's name, the dimensions, its parameters,
//   opencl_mma head_dim=64 value_dim=64 warps=8 key_tile=64 query_split=1 prefetch=1
//   opencl_cpu head_dim=64 value_dim=64 query_rows=4
//   opencl_tiled head_dim=64 value_dim=64 query_tile=64 key_tile=32 rows_per_item=8
//     columns_per_item=4 stage_queries=1 stage_values=1 prefetch=1   (on one line)
// A line without a kernel's name is opencl_tiled's (the files written before opencl_mma).
// '#' starts a comment. Files are named after the device (tuning_file_name) and looked up in
// $OPENCL_TUNING_DIR first, then among the files of gpu/tuning embedded in the library.
inline constexpr const char* kTuningDirectoryVariable = "OPENCL_TUNING_DIR";

// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3.tuning": lower case, every run of other
// characters than letters and digits one '-'.
std::string tuning_file_name(std::string_view device_name);

// The entries of a tuning file's text; std::runtime_error naming `source` and the line for a
// malformed line (an unknown kernel, an unknown or missing key, a size that is not a positive
// integer, a flag not 0 or 1).
std::vector<TuningEntry> parse_tuning(std::string_view text, std::string_view source);

// The text of a tuning file: a comment line, then one line per entry.
std::string format_tuning(std::string_view comment, std::span<const TuningEntry> entries);

// A tuning file's text and where it came from (for error messages).
struct TuningText {
  std::string_view text;
  std::string_view source;
};

// The first entry for `kernel` and these dimensions among the files, in order; errors of a
// malformed file propagate.
std::optional<KernelParameters> find_tuned_parameters(std::span<const TuningText> files, std::string_view kernel,
                                                      std::size_t head_dim, std::size_t value_dim);

// The parameters the device's tuning files give `kernel` for these dimensions: the entry of
// $OPENCL_TUNING_DIR's file, else of the embedded one (a file that tuned one kernel leaves the
// others their shipped tuning), else nothing.
std::optional<KernelParameters> tuned_parameters(const DeviceInfo& device, std::string_view kernel,
                                                 std::size_t head_dim, std::size_t value_dim);

// tuned_parameters for the kernel that takes `Parameters`.
template <class Parameters>
std::optional<Parameters> tuned_parameters_of(const DeviceInfo& device, std::size_t head_dim, std::size_t value_dim) {
  const std::optional<KernelParameters> tuned =
      tuned_parameters(device, tuned_kernel_name(KernelParameters(Parameters{})), head_dim, value_dim);
  if (!tuned) return std::nullopt;
  return std::get<Parameters>(*tuned);
}

}  // namespace gpu
