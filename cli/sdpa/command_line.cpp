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

template <class Implementations>
std::string names_of(const Implementations& implementations) {
  std::string names;
  for (const auto& i : implementations) names += (names.empty() ? "" : ", ") + std::string(i.name);
  return names;
}

std::string registered_implementation_names() {
  return names_of(sdpa_implementations()) + ", " + names_of(cpu_bf16_implementations());
}

// The library's default CPU one. OpenCL kernels are chosen by name only: their device is the
// user's choice (OPENCL_DEVICE).
const Implementation& default_implementation() { return default_cpu_implementation(); }
const Bf16Implementation& default_bf16_implementation() { return default_cpu_bf16_implementation(); }

// `name` (the default where none is given) among the implementations of `dtype`.
void resolve_implementation(std::optional<std::string_view> name, CommandLine& command) {
  const auto unsupported = [](std::string_view n) {
    return UsageError("implementation " + quoted(n) + " is not supported on this machine");
  };
  if (command.dtype == ElementType::float32) {
    command.implementation = name ? find_sdpa_implementation(*name) : &default_implementation();
    if (command.implementation != nullptr) {
      if (!command.implementation->is_supported()) throw unsupported(*name);
      return;
    }
    if (find_cpu_bf16_implementation(*name) != nullptr)
      throw UsageError("implementation " + quoted(*name) + " computes in bfloat16: add --dtype bf16");
  } else {
    command.bf16_implementation = name ? find_cpu_bf16_implementation(*name) : &default_bf16_implementation();
    if (command.bf16_implementation != nullptr) {
      if (!command.bf16_implementation->is_supported()) throw unsupported(*name);
      return;
    }
    if (find_sdpa_implementation(*name) != nullptr)
      throw UsageError("implementation " + quoted(*name) + " computes in float32; with --dtype bf16: " +
                       names_of(cpu_bf16_implementations()));
  }
  throw UsageError("unknown implementation " + quoted(*name) + " (registered: " + registered_implementation_names() +
                   ")");
}

ElementType validated_dtype(std::string_view text) {
  if (text == "float32") return ElementType::float32;
  if (text == "bf16") return ElementType::bfloat16;
  throw UsageError("unknown dtype " + quoted(text) + " (expected float32 or bf16)");
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
  std::optional<std::string_view> implementation;
  std::optional<ElementType> dtype;
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
      set_once(implementation, cursor.value(arg), arg);
    } else if (arg == "--dtype") {
      set_once(dtype, validated_dtype(cursor.value(arg)), arg);
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
  command.dtype = dtype.value_or(ElementType::float32);
  resolve_implementation(implementation, command);
  return command;
}

std::string implementation_list_text() {
  std::vector<cli_support::ListedEntry> entries;
  for (const Implementation& i : sdpa_implementations())
    entries.push_back({i.name, i.description, i.name == default_implementation().name, i.is_supported()});
  for (const Bf16Implementation& i : cpu_bf16_implementations())
    entries.push_back({i.name, i.description, false, i.is_supported()});
  return cli_support::listing_text(entries, " (not supported on this machine)");
}

std::string usage_text() {
  std::string implementations;
  const auto describe = [&](const auto& i) {
    implementations += "                    " + std::string(i.name) +
                       (i.is_supported() ? "" : " (not supported on this machine)") + ": " + std::string(i.description) +
                       "\n";
  };
  implementations += "                  float32:\n";
  for (const Implementation& i : sdpa_implementations()) describe(i);
  implementations += "                  bf16:\n";
  for (const Bf16Implementation& i : cpu_bf16_implementations()) describe(i);
  return "Usage: sdpa --q Q.npy --k K.npy --v V.npy [--mask M.npy] [--causal none|top-left|bottom-right]\n"
         "            [--scale S] [--dtype float32|bf16] [--impl NAME] --out O.npy\n"
         "       sdpa --list\n"
         "       sdpa --help\n"
         "\n"
         "Computes scaled dot-product attention in float32 or bfloat16 (--dtype),\n"
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
         "  --dtype TYPE    the element type of Q, K, V and O in the computation (default:\n"
         "                  float32); the files stay float32. bf16: Q, K and V are rounded to\n"
         "                  bfloat16 (to nearest, ties to even, as torch's .to(torch.bfloat16)),\n"
         "                  scores, softmax and sums are float32, O is rounded to bfloat16 and\n"
         "                  written as float32, so that the file compares with PyTorch's\n"
         "                  bfloat16 SDPA on the same inputs. The mask stays float32.\n"
         "  --impl NAME     how O is computed, an implementation of --dtype; every float32\n"
         "                  one agrees with reference within float32 tolerances, every bf16\n"
         "                  one with reference_bf16 within bfloat16's (default: " +
         std::string(default_implementation().name) + ", or " + std::string(default_bf16_implementation().name) +
         ",\n"
         "                  the fastest supported here). Implementations:\n" +
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
