#pragma once

#include <string>
#include <string_view>

namespace benches {

// The file named by BENCHES_ERROR_LOG (a path, or "1" for benches-error.log in the current
// folder), to which the run appends a timestamped line for each error and warning raised during
// it; every line also goes to stderr. Without the variable, stderr alone.
//
// Opens (creates) the file once at start-up, so that a bad path fails before any benchmark runs:
// throws std::runtime_error naming the path and the reason.
void open_error_log_from_environment();
// The path in use; empty without BENCHES_ERROR_LOG.
const std::string& error_log_path();

void log_error(std::string_view message);
void log_warning(std::string_view message);

}  // namespace benches
