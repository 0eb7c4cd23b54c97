#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sdpa_tune {

// What one run of sdpa_tune does; see usage_text().
struct TuneOptions {
  bool help = false;
  // Kernels to tune, in order (opencl_tiled, opencl_mma); empty: every one the device runs.
  std::vector<std::string> kernels;
  // Head (= value) dimensions to tune, in order.
  std::vector<std::size_t> dims{64, 128};
  // The timed problem: batch 4, 8 heads, seq queries and keys (the sdpa benchmarks' shape).
  std::size_t seq = 1024;
  // Timed launches per candidate; the fastest counts.
  std::size_t repeats = 5;
  // At most this many candidates per dimension (the sweep's first ones), 0 for all.
  std::size_t limit = 0;
  // No new candidate of a dimension is tried after this many seconds on it, 0 for no limit.
  std::size_t seconds = 0;
  // Where the tuning file is written (as <folder>/<device>.tuning); without it, stdout.
  std::optional<std::string> out_folder;
};

std::string usage_text();

// cli_support::UsageError for unknown options, missing or malformed values.
TuneOptions parse_tune_command_line(std::span<const std::string_view> args);

}  // namespace sdpa_tune
