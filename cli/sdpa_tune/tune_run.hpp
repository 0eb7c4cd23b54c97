#pragma once

#include "tune_command_line.hpp"

namespace sdpa_tune {

// Runs the sweep `options` describes (usage_text()). std::runtime_error when no candidate of a
// dimension passes, or when the device or the output folder fails.
void run_tune(const TuneOptions& options);

}  // namespace sdpa_tune
