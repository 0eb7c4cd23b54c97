#include "command_line.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

#include "cli_support/argument_cursor.hpp"
#include "cli_support/listing.hpp"
#include "implementation_list.hpp"

namespace attention::cli {

namespace {

using cli_support::ArgumentCursor;
using cli_support::quoted;

std::string registered_implementation_names() {
  std::string names;
  for (const Implementation& i : sdpa_implementations()) names += (names.empty() ? "" : ", ") + std::string(i.name);
  return names;
}

// The library's default CPU one. OpenCL kernels are chosen by name only: their device is the
// user's choice (OPENCL_DEVICE).
const Implementation& default_implementation() { return default_cpu_implementation(); }

const Implementation* resolve_implementation(std::string_view name) {
  const Implementation* implementation = find_sdpa_implementation(name);
  if (!implementation)
    throw UsageError("unknown implementation " + quoted(name) + " (registered: " + registered_implementation_names() +
                     ")");
  if (!implementation->is_supported())
    throw UsageError("implementation " + quoted(name) + " is not supported on this machine");
  return implementation;
}

CausalAlignment validated_causal(std::string_view text) {
  if (const std::optional<CausalAlignment> causal = parse_causal_alignment(text)) return *causal;
  throw UsageError("unknown causal alignment " + quoted(text) + " (expected none, top-left or bottom-right)");
}

float validated_scale(std::string_view text) {
  float scale = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), scale);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(scale) || scale <= 0)
    throw UsageError("bad scale " + quoted(text) + " (expected a positive finite number, such as 0.125)");
  return scale;
}

// An option given at most once.
template <class T>
void set_once(std::optional<T>& slot, T value, std::string_view option) {
  if (slot) throw UsageError("option " + std::string(option) + " given twice");
  slot = std::move(value);
}

std::string file_name(ArgumentCursor& cursor, std::string_view option) {
  const std::string_view name = cursor.value(option);
  if (name.empty()) throw UsageError("option " + std::string(option) + " needs a non-empty file name");
  return std::string(name);
}

}  // namespace

CommandLine parse_command_line(std::span<const std::string_view> args) {
  CommandLine command;
  std::optional<std::string> q, k, v, mask, out;
  std::optional<CausalAlignment> causal;
  std::optional<float> scale;
  std::optional<const Implementation*> implementation;
  ArgumentCursor cursor(args);
  while (!cursor.done()) {
    const std::string_view arg = cursor.advance();
    if (arg == "--help" || arg == "-h") {
      cursor.expect_no_value(arg);
      command.help = true;
      return command;
    } else if (arg == "--list") {
      cursor.expect_no_value(arg);
      command.list = true;
      return command;
    } else if (arg == "--q") {
      set_once(q, file_name(cursor, arg), arg);
    } else if (arg == "--k") {
      set_once(k, file_name(cursor, arg), arg);
    } else if (arg == "--v") {
      set_once(v, file_name(cursor, arg), arg);
    } else if (arg == "--mask") {
      set_once(mask, file_name(cursor, arg), arg);
    } else if (arg == "--out") {
      set_once(out, file_name(cursor, arg), arg);
    } else if (arg == "--causal") {
      set_once(causal, validated_causal(cursor.value(arg)), arg);
    } else if (arg == "--scale") {
      set_once(scale, validated_scale(cursor.value(arg)), arg);
    } else if (arg == "--impl") {
      set_once(implementation, resolve_implementation(cursor.value(arg)), arg);
    } else if (arg.starts_with("-")) {
      throw UsageError("unknown option " + quoted(arg) + " (see --help)");
    } else {
      throw UsageError("unexpected argument " + quoted(arg) + " (files are named by options; see --help)");
    }
  }
  std::string missing;
  int missing_count = 0;
  for (const auto& [option, value] : {std::pair{"--q", &q}, {"--k", &k}, {"--v", &v}, {"--out", &out}})
    if (!*value) missing += (missing_count++ == 0 ? "" : ", ") + std::string(option);
  if (missing_count > 0)
    throw UsageError(std::string(missing_count == 1 ? "missing required option " : "missing required options ") +
                     missing + " (see --help)");
  command.q = *q;
  command.k = *k;
  command.v = *v;
  command.out = *out;
  command.mask = mask.value_or("");
  command.causal = causal.value_or(CausalAlignment::none);
  command.scale = scale;
  command.implementation = implementation.value_or(&default_implementation());
  return command;
}

std::string implementation_list_text() {
  std::vector<cli_support::ListedEntry> entries;
  for (const Implementation& i : sdpa_implementations())
    entries.push_back({i.name, i.description, i.name == default_implementation().name, i.is_supported()});
  return cli_support::listing_text(entries, " (not supported on this machine)");
}

std::string usage_text() {
  std::string implementations;
  for (const Implementation& i : sdpa_implementations())
    implementations += "                  " + std::string(i.name) +
                       (i.is_supported() ? "" : " (not supported on this machine)") + ": " + std::string(i.description) +
                       "\n";
  return "Usage: sdpa --q Q.npy --k K.npy --v V.npy [--mask M.npy] [--causal none|top-left|bottom-right]\n"
         "            [--scale S] [--impl NAME] --out O.npy\n"
         "       sdpa --list\n"
         "       sdpa --help\n"
         "\n"
         "Computes scaled dot-product attention in float32,\n"
         "  O = softmax(scale * Q K^T + mask, restricted by --causal) V,\n"
         "reading its inputs from NumPy .npy files and writing O to one.\n"
         "\n"
         "Shapes (every file little-endian float32 '<f4' in C order, as numpy.save writes\n"
         "numpy.float32 arrays; .npy format versions 1.0, 2.0 and 3.0 are read):\n"
         "  Q     [batch, heads, seq_q, head_dim]\n"
         "  K     [batch, kv_heads, seq_k, head_dim]\n"
         "  V     [batch, kv_heads, seq_k, value_dim]\n"
         "  mask  [seq_q, seq_k], added to every batch and head's scores; -inf hides a key\n"
         "  O     [batch, heads, seq_q, value_dim]\n"
         "heads must be a multiple of kv_heads (query head h reads key/value head\n"
         "h / (heads / kv_heads)); head_dim and value_dim are at most " +
         std::to_string(kMaxHeadDim) +
         "; seq_q and seq_k are\n"
         "independent. A query that sees no key (every key masked) gets a row of zeros;\n"
         "one whose visible scores hold a NaN (from Q, K or the mask) or +inf gets a row\n"
         "of NaN, as in PyTorch. The output must fit in memory (or ulimit -v).\n"
         "\n"
         "Options (an option's value may also follow '=', as in --causal=top-left):\n"
         "  --q FILE        the queries Q (required)\n"
         "  --k FILE        the keys K (required)\n"
         "  --v FILE        the values V (required)\n"
         "  --mask FILE     an additive mask (default: none)\n"
         "  --causal KIND   which keys each query may see besides the mask (default: none):\n"
         "                    none          every key\n"
         "                    top-left      query i sees keys 0..i (PyTorch's is_causal)\n"
         "                    bottom-right  query i sees keys 0..i + seq_k - seq_q, so the last\n"
         "                                  query sees every key (FlashAttention, a KV cache)\n"
         "  --scale S       the factor applied to Q K^T, positive and finite\n"
         "                  (default: 1 / sqrt(head_dim))\n"
         "  --impl NAME     how O is computed; every implementation agrees with reference\n"
         "                  within float32 tolerances (default: " +
         std::string(default_implementation().name) +
         ", the fastest supported here).\n"
         "                  Implementations:\n" +
         implementations +
         "  --out FILE      where O is written (required); it is replaced only once O is\n"
         "                  computed and written whole, and left as it was on any error;\n"
         "                  a FILE that cannot be written at all (a folder, or in a missing\n"
         "                  folder) is refused before O is computed\n"
         "  --list          print the implementations, one a line, name first, and exit\n"
         "  -h, --help      print this text and exit\n"
         "\n"
         "Exit status: 0 on success, 1 on a runtime error (unreadable or malformed .npy file,\n"
         "shapes that do not fit together, unwritable output), 2 on a usage error (unknown\n"
         "option, missing required option, bad value, unknown or unsupported --impl).\n";
}

}  // namespace attention::cli
