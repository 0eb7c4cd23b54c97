#include "gpu/opencl_tuning.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "embedded_files.hpp"

namespace gpu {

namespace {

// The kernels' names in the order of KernelParameters' alternatives.
constexpr std::string_view kKernelNames[] = {"opencl_tiled", "opencl_mma", "opencl_cpu"};
static_assert(std::size(kKernelNames) == std::variant_size_v<KernelParameters>);

std::runtime_error line_error(std::string_view source, std::size_t line, const std::string& what) {
  return std::runtime_error(std::string(source) + ":" + std::to_string(line) + ": " + what);
}

// A kernel's parameters as a tuning line names them: sizes (positive) and flags (0 or 1).
struct Field {
  std::string_view key;
  bool flag;
};

constexpr Field kTiledFields[] = {{"query_tile", false},       {"key_tile", false},      {"rows_per_item", false},
                                  {"columns_per_item", false}, {"stage_queries", true}, {"stage_values", true},
                                  {"prefetch", true}};
constexpr Field kMmaFields[] = {{"warps", false}, {"key_tile", false}, {"query_split", true}, {"prefetch", true}};
constexpr Field kCpuFields[] = {{"query_rows", false}};

// Each kernel's fields, and its parameters from their values (after head_dim and value_dim), in
// the order of kKernelNames.
std::span<const Field> fields_of(std::size_t kernel) {
  const std::span<const Field> fields[] = {kTiledFields, kMmaFields, kCpuFields};
  return fields[kernel];
}

KernelParameters parameters_of(std::size_t kernel, const std::vector<std::size_t>& v) {
  if (kernel == 1) return MmaSdpaParameters{v[2], v[3], v[4] == 1, v[5] == 1, false};
  if (kernel == 2) return CpuSdpaParameters{v[2]};
  return TiledSdpaParameters{v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
}

TuningEntry parse_entry(std::string_view line, std::string_view source, std::size_t line_number) {
  std::vector<std::string> words;
  std::istringstream text{std::string(line)};
  for (std::string word; text >> word;) words.push_back(word);
  // Lines start with a word: a kernel's name, or (files before opencl_mma) opencl_tiled's first key.
  std::size_t kernel = 0;
  std::size_t first = 0;
  if (words[0].find('=') == std::string::npos) {
    while (kernel < std::size(kKernelNames) && kKernelNames[kernel] != words[0]) ++kernel;
    if (kernel == std::size(kKernelNames)) {
      throw line_error(source, line_number,
                       "'" + words[0] + "' is not a tunable kernel (opencl_tiled, opencl_mma, opencl_cpu)");
    }
    first = 1;
  }
  std::vector<Field> keys{{"head_dim", false}, {"value_dim", false}};
  for (const Field& field : fields_of(kernel)) keys.push_back(field);
  std::vector<std::size_t> values(keys.size());
  std::vector<bool> seen(keys.size());
  for (std::size_t w = first; w < words.size(); ++w) {
    const std::string& word = words[w];
    const std::size_t equals = word.find('=');
    const std::string_view key = std::string_view(word).substr(0, equals);
    std::size_t index = 0;
    while (index < keys.size() && keys[index].key != key) ++index;
    if (equals == std::string::npos || index == keys.size()) {
      std::string expected;
      for (const Field& field : keys) expected.append(" ").append(field.key).append("=N");
      throw line_error(source, line_number,
                       "'" + word + "' is not one of" + expected + " (" + std::string(kKernelNames[kernel]) + ")");
    }
    const std::string_view digits = std::string_view(word).substr(equals + 1);
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    const bool flag = keys[index].flag;
    if (error != std::errc() || end != digits.data() + digits.size() || (flag ? value > 1 : value == 0) ||
        value > (1u << 20)) {
      throw line_error(source, line_number, std::string(key) + (flag ? " must be 0 or 1" : " must be a positive integer") +
                                                ", not '" + std::string(digits) + "'");
    }
    values[index] = value;
    seen[index] = true;
  }
  for (std::size_t index = 0; index < keys.size(); ++index) {
    if (!seen[index]) throw line_error(source, line_number, "no " + std::string(keys[index].key) + "=");
  }
  return TuningEntry{values[0], values[1], parameters_of(kernel, values)};
}

}  // namespace

std::string_view tuned_kernel_name(const KernelParameters& parameters) { return kKernelNames[parameters.index()]; }

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
    const std::string parameters =
        std::visit([](const auto& kernel_parameters) { return kernel_parameters.to_string(); }, entry.parameters);
    text += std::string(tuned_kernel_name(entry.parameters)) + " head_dim=" + std::to_string(entry.head_dim) +
            " value_dim=" + std::to_string(entry.value_dim) + " " + parameters + "\n";
  }
  return text;
}

std::optional<KernelParameters> find_tuned_parameters(std::span<const TuningText> files, std::string_view kernel,
                                                      std::size_t head_dim, std::size_t value_dim) {
  for (const TuningText& file : files) {
    for (const TuningEntry& entry : parse_tuning(file.text, file.source)) {
      if (tuned_kernel_name(entry.parameters) == kernel && entry.head_dim == head_dim && entry.value_dim == value_dim) {
        return entry.parameters;
      }
    }
  }
  return std::nullopt;
}

std::optional<KernelParameters> tuned_parameters(const DeviceInfo& device, std::string_view kernel,
                                                 std::size_t head_dim, std::size_t value_dim) {
  const std::string file_name = tuning_file_name(device.name);
  std::vector<TuningText> files;
  std::string directory_text;
  std::string directory_source;
  const char* directory = std::getenv(kTuningDirectoryVariable);
  if (directory && *directory) {
    const std::filesystem::path path = std::filesystem::path(directory) / file_name;
    if (std::filesystem::exists(path)) {
      std::ifstream file(path, std::ios::binary);
      std::ostringstream contents;
      contents << file.rdbuf();
      if (!file) throw std::runtime_error("cannot read the tuning file " + path.string());
      directory_text = contents.str();
      directory_source = path.string();
      files.push_back({directory_text, directory_source});
    }
  }
  const std::string embedded_source = "gpu/tuning/" + file_name;
  if (const std::optional<std::string_view> embedded = find_embedded_file(embedded_tuning_files(), file_name)) {
    files.push_back({*embedded, embedded_source});
  }
  return find_tuned_parameters(files, kernel, head_dim, value_dim);
}

}  // namespace gpu
