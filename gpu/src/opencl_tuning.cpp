#include "gpu/opencl_tuning.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "embedded_files.hpp"

namespace gpu {

namespace {

std::runtime_error line_error(std::string_view source, std::size_t line, const std::string& what) {
  return std::runtime_error(std::string(source) + ":" + std::to_string(line) + ": " + what);
}

TuningEntry parse_entry(std::string_view line, std::string_view source, std::size_t line_number) {
  static constexpr std::string_view kKeys[] = {"head_dim",         "value_dim",     "query_tile",   "key_tile",
                                               "rows_per_item",    "columns_per_item", "stage_queries",
                                               "stage_values",     "prefetch"};
  std::size_t values[std::size(kKeys)] = {};
  bool seen[std::size(kKeys)] = {};
  std::istringstream words{std::string(line)};
  std::string word;
  while (words >> word) {
    const std::size_t equals = word.find('=');
    const std::string_view key = std::string_view(word).substr(0, equals);
    std::size_t index = 0;
    while (index < std::size(kKeys) && kKeys[index] != key) ++index;
    if (equals == std::string::npos || index == std::size(kKeys)) {
      throw line_error(source, line_number, "'" + word + "' is not one of head_dim=N value_dim=N query_tile=N "
                                            "key_tile=N rows_per_item=N columns_per_item=N stage_queries=N "
                                            "stage_values=N prefetch=N");
    }
    const std::string_view digits = std::string_view(word).substr(equals + 1);
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    // Every value but the flags stage_queries, stage_values and prefetch is a size.
    const bool flag = key.starts_with("stage_") || key == "prefetch";
    if (error != std::errc() || end != digits.data() + digits.size() || (flag ? value > 1 : value == 0) ||
        value > (1u << 20)) {
      throw line_error(source, line_number, std::string(key) + (flag ? " must be 0 or 1" : " must be a positive integer") +
                                                ", not '" + std::string(digits) + "'");
    }
    values[index] = value;
    seen[index] = true;
  }
  for (std::size_t index = 0; index < std::size(kKeys); ++index) {
    if (!seen[index]) throw line_error(source, line_number, "no " + std::string(kKeys[index]) + "=");
  }
  return TuningEntry{values[0], values[1],
                     TiledSdpaParameters{values[2], values[3], values[4], values[5], values[6], values[7], values[8]}};
}

}  // namespace

std::string tuning_file_name(std::string_view device_name) {
  std::string name;
  for (const char c : device_name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!name.empty() && name.back() != '-') {
      name += '-';
    }
  }
  if (!name.empty() && name.back() == '-') name.pop_back();
  return (name.empty() ? "device" : name) + ".tuning";
}

std::vector<TuningEntry> parse_tuning(std::string_view text, std::string_view source) {
  std::vector<TuningEntry> entries;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_number;
    line = line.substr(0, line.find('#'));
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    entries.push_back(parse_entry(line, source, line_number));
  }
  return entries;
}

std::string format_tuning(std::string_view comment, std::span<const TuningEntry> entries) {
  std::string text = "# " + std::string(comment) + "\n";
  for (const TuningEntry& entry : entries) {
    text += "head_dim=" + std::to_string(entry.head_dim) + " value_dim=" + std::to_string(entry.value_dim) + " " +
            entry.parameters.to_string() + "\n";
  }
  return text;
}

std::optional<TiledSdpaParameters> tuned_parameters(const DeviceInfo& device, std::size_t head_dim,
                                                    std::size_t value_dim) {
  const std::string file_name = tuning_file_name(device.name);
  std::string text;
  std::string source;
  const char* directory = std::getenv(kTuningDirectoryVariable);
  const std::filesystem::path path = directory && *directory ? std::filesystem::path(directory) / file_name
                                                             : std::filesystem::path();
  if (!path.empty() && std::filesystem::exists(path)) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream contents;
    contents << file.rdbuf();
    if (!file) throw std::runtime_error("cannot read the tuning file " + path.string());
    text = contents.str();
    source = path.string();
  } else if (const std::optional<std::string_view> embedded = find_embedded_file(embedded_tuning_files(), file_name)) {
    text = *embedded;
    source = "gpu/tuning/" + file_name;
  } else {
    return std::nullopt;
  }
  for (const TuningEntry& entry : parse_tuning(text, source)) {
    if (entry.head_dim == head_dim && entry.value_dim == value_dim) return entry.parameters;
  }
  return std::nullopt;
}

}  // namespace gpu
