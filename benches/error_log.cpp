#include "error_log.hpp"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace benches {

namespace {

std::string& log_path() {
  static std::string path;
  return path;
}

// UTC, to the second, as ISO 8601: lines of runs on different machines sort together.
std::string timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

void log_line(std::string_view severity, std::string_view message) {
  std::string line = timestamp();
  line += ' ';
  line += severity;
  line += ": ";
  line += message;
  line += '\n';
  std::cerr << "benches: " << severity << ": " << message << '\n';
  if (log_path().empty()) return;
  // Opened per line: a run that crashes later still leaves every line written before.
  std::ofstream file(log_path(), std::ios::app | std::ios::binary);
  file << line;
  if (!file.flush()) std::cerr << "benches: error: cannot append to " << log_path() << '\n';
}

}  // namespace

void open_error_log_from_environment() {
  const char* value = std::getenv("BENCHES_ERROR_LOG");
  if (value == nullptr || *value == '\0') return;
  const std::string path = std::string_view(value) == "1" ? "benches-error.log" : value;
  std::ofstream file(path, std::ios::app | std::ios::binary);
  if (!file) {
    std::string message = "BENCHES_ERROR_LOG: cannot open ";
    message += path;
    message += " for appending: ";
    message += std::strerror(errno);
    throw std::runtime_error(message);
  }
  log_path() = path;
}

const std::string& error_log_path() { return log_path(); }

void log_error(std::string_view message) { log_line("error", message); }

void log_warning(std::string_view message) { log_line("warning", message); }

}  // namespace benches
