#include "tune_command_line.hpp"

#include <charconv>

#include "cli_support/argument_cursor.hpp"
#include "cli_support/usage_error.hpp"

namespace sdpa_tune {

namespace {

std::size_t positive_integer(std::string_view option, std::string_view text, std::size_t at_most) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0 || value > at_most) {
    throw cli_support::UsageError(std::string(option) + " takes an integer from 1 to " + std::to_string(at_most) +
                                  ", not '" + std::string(text) + "'");
  }
  return value;
}

}  // namespace

std::string usage_text() {
  return "usage: sdpa_tune [--kernels LIST] [--dims 64,128] [--seq 1024] [--repeats 5] [--limit N]\n"
         "                 [--seconds N] [--out FOLDER]\n"
         "\n"
         "Sweeps the parameters of the tunable SDPA kernels (opencl_tiled's tile shapes; opencl_mma's\n"
         "warps, key tile, query split and prefetch, where the device has tensor cores; opencl_cpu's\n"
         "queries per work-item) on the OpenCL device that OPENCL_DEVICE selects (default: the first\n"
         "GPU, else the first CPU device), and writes the fastest per kernel and head dimension as\n"
         "the device's tuning file, which the gpu library reads from $OPENCL_TUNING_DIR (or from the\n"
         "files of gpu/tuning built into it).\n"
         "Every candidate is first checked against the reference on a small causal, masked,\n"
         "grouped-query problem; one that fails to build, to launch or to agree is reported and\n"
         "skipped. Progress goes to stderr.\n"
         "\n"
         "  --kernels LIST  kernels to tune, comma-separated, of opencl_tiled, opencl_mma, opencl_cpu;\n"
         "                  default: opencl_cpu on a CPU device, else opencl_tiled and opencl_mma\n"
         "                  (where the device has tensor cores)\n"
         "  --dims LIST     head dimensions to tune, comma-separated (value dimension the same)\n"
         "  --seq N         queries and keys of the timed problem (batch 4, 8 heads, non-causal)\n"
         "  --repeats N     timed launches per candidate; the fastest counts\n"
         "  --limit N       try at most the first N candidates of each dimension\n"
         "  --seconds N     try no new candidate of a dimension after N seconds on it\n"
         "  --out FOLDER    write FOLDER/<device>.tuning (created if missing); default: stdout\n"
         "  --help          this text\n";
}

TuneOptions parse_tune_command_line(std::span<const std::string_view> args) {
  TuneOptions options;
  cli_support::ArgumentCursor cursor(args);
  while (!cursor.done()) {
    const std::string_view arg = cursor.advance();
    if (arg == "--help" || arg == "-h") {
      cursor.expect_no_value(arg);
      options.help = true;
    } else if (arg == "--kernels") {
      options.kernels.clear();
      std::string_view list = cursor.value(arg);
      while (true) {
        const std::size_t comma = list.find(',');
        const std::string_view kernel = list.substr(0, comma);
        if (kernel != "opencl_tiled" && kernel != "opencl_mma" && kernel != "opencl_cpu") {
          throw cli_support::UsageError("--kernels takes opencl_tiled, opencl_mma and opencl_cpu, not '" +
                                        std::string(kernel) + "'");
        }
        options.kernels.emplace_back(kernel);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
    } else if (arg == "--dims") {
      options.dims.clear();
      std::string_view list = cursor.value(arg);
      while (true) {
        const std::size_t comma = list.find(',');
        options.dims.push_back(positive_integer(arg, list.substr(0, comma), 256));
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
    } else if (arg == "--seq") {
      options.seq = positive_integer(arg, cursor.value(arg), 65536);
    } else if (arg == "--repeats") {
      options.repeats = positive_integer(arg, cursor.value(arg), 1000);
    } else if (arg == "--limit") {
      options.limit = positive_integer(arg, cursor.value(arg), 100000);
    } else if (arg == "--seconds") {
      options.seconds = positive_integer(arg, cursor.value(arg), 1000000);
    } else if (arg == "--out") {
      const std::string_view folder = cursor.value(arg);
      if (folder.empty()) throw cli_support::UsageError("--out takes a folder, not an empty string");
      options.out_folder = std::string(folder);
    } else {
      throw cli_support::UsageError("unknown argument '" + std::string(arg) + "'; see --help");
    }
  }
  return options;
}

}  // namespace sdpa_tune
