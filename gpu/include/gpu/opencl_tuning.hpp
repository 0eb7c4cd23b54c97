#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/opencl_device.hpp"
#include "gpu/tiled_sdpa_parameters.hpp"

namespace gpu {

// One line of a tuning file: the best opencl_tiled parameters the tuner found for a pair of
// dimensions on one device,.
struct TuningEntry {
  std::size_t head_dim = 0;
  std::size_t value_dim = 0;
  TiledSdpaParameters parameters;
};

// A device's tuning file: one entry per line,
//   head_dim=64 value_dim=64 query_tile=64 key_tile=32 rows_per_item=8 columns_per_item=4 stage_queries=1
//   stage_values=1 prefetch=1   (on one line)
// '#' starts a comment. Files are named after the device (tuning_file_name) and looked up in
// $OPENCL_TUNING_DIR first, then among the files of gpu/tuning embedded in the library.
inline constexpr const char* kTuningDirectoryVariable = "OPENCL_TUNING_DIR";

// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3.tuning": lower case, every run of other
// characters than letters and digits one '-'.
std::string tuning_file_name(std::string_view device_name);

// The entries of a tuning file's text; std::runtime_error naming `source` and the line for a
// malformed line (unknown or missing key, a size that is not a positive integer, a flag not 0
// or 1).
std::vector<TuningEntry> parse_tuning(std::string_view text, std::string_view source);

// The text of a tuning file: a comment line, then one line per entry.
std::string format_tuning(std::string_view comment, std::span<const TuningEntry> entries);

// The parameters the device's tuning file gives for these dimensions, if it has a file and the
// file an entry for them; errors of a malformed file propagate.
std::optional<TiledSdpaParameters> tuned_parameters(const DeviceInfo& device, std::size_t head_dim,
                                                    std::size_t value_dim);

}  // namespace gpu
