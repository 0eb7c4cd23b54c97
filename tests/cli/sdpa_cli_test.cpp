// The `sdpa` program, run as a child process: its output file against sdpa_reference computed in
// this process, every option, --help and --list, and every error's exit status and message.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "attention/attention_problem.hpp"
#include "attention/bfloat16.hpp"
#include "attention/implementation_registry.hpp"
#include "gpu/opencl_implementations.hpp"
#include "attention/npy_file.hpp"
#include "process_runner.hpp"
#include "test_directory.hpp"

namespace attention {
namespace {

namespace fs = std::filesystem;

constexpr int kExitRuntimeError = 1;
constexpr int kExitUsageError = 2;

// Grouped-query attention with seq_q != seq_k and head_dim != value_dim, so that a swapped
// dimension anywhere changes the output's shape or values.
constexpr AttentionShape kShape{
    .batch = 2, .heads = 4, .kv_heads = 2, .seq_q = 5, .seq_k = 7, .head_dim = 8, .value_dim = 6};
constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();
// Of the mask's rows, this one hides every key: its outputs must be zeros.
constexpr std::size_t kFullyMaskedRow = 1;

// The bfloat16 kernels' choice pinned for this process and the sdpa runs it starts (they inherit
// its environment), unless the caller pinned it: left to each process's timing probe, a CPU near
// the probe's margin can choose vdpbf16ps in one process and the widened kernels in the other,
// whose outputs differ in rounding.
[[maybe_unused]] const bool kBf16ChoicePinned = setenv("TOKBENCH_BF16_PAIRS", "1", /*overwrite=*/0) == 0;

tokenizer::test::ProcessResult run_sdpa(std::vector<std::string> args) {
  return tokenizer::test::run_process({TOKBENCH_SDPA_BINARY, std::move(args), {}, {}});
}

std::vector<float> random_values(std::size_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = normal(rng);
  return values;
}

// Random additive terms, some keys hidden with -inf, and one row hidden entirely.
std::vector<float> random_mask(std::size_t seq_q, std::size_t seq_k) {
  std::vector<float> mask = random_values(seq_q * seq_k, 7);
  for (std::size_t i = 0; i < seq_q; ++i)
    for (std::size_t j = 0; j < seq_k; ++j)
      if (i == kFullyMaskedRow || (i + 2 * j) % 5 == 0) mask[i * seq_k + j] = kMinusInfinity;
  return mask;
}

std::vector<std::size_t> q_shape(const AttentionShape& s) { return {s.batch, s.heads, s.seq_q, s.head_dim}; }
std::vector<std::size_t> k_shape(const AttentionShape& s) { return {s.batch, s.kv_heads, s.seq_k, s.head_dim}; }
std::vector<std::size_t> v_shape(const AttentionShape& s) { return {s.batch, s.kv_heads, s.seq_k, s.value_dim}; }
std::vector<std::size_t> out_shape(const AttentionShape& s) { return {s.batch, s.heads, s.seq_q, s.value_dim}; }

std::string read_binary(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void expect_same_bits(const std::vector<float>& expected, const std::vector<float>& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (std::bit_cast<std::uint32_t>(expected[i]) != std::bit_cast<std::uint32_t>(actual[i]) && ++differing <= 5)
      ADD_FAILURE() << "value " << i << ": expected " << expected[i] << ", got " << actual[i];
  EXPECT_EQ(differing, 0u);
}

// What the options ask for, as command-line arguments and as the in-process problem's fields.
struct Options {
  std::string name;
  bool mask = false;
  CausalAlignment causal = CausalAlignment::none;
  std::optional<std::string> scale{};  // as written on the command line

  std::vector<std::string> args(const fs::path& dir) const {
    std::vector<std::string> out;
    if (mask) out.insert(out.end(), {"--mask", (dir / "mask.npy").string()});
    if (causal != CausalAlignment::none) out.insert(out.end(), {"--causal", std::string(to_string(causal))});
    if (scale) out.insert(out.end(), {"--scale", *scale});
    return out;
  }
  std::optional<float> scale_value() const { return scale ? std::optional<float>(std::stof(*scale)) : std::nullopt; }

  friend void PrintTo(const Options& o, std::ostream* os) { *os << o.name; }
};

// A fresh folder holding q.npy, k.npy, v.npy and mask.npy of kShape.
class SdpaCli : public test::TestDirectory {
 protected:
  void SetUp() override {
    TestDirectory::SetUp();
    q_ = random_values(kShape.q_elements(), 1);
    k_ = random_values(kShape.k_elements(), 2);
    v_ = random_values(kShape.v_elements(), 3);
    mask_ = random_mask(kShape.seq_q, kShape.seq_k);
    write_npy(path("q.npy"), q_shape(kShape), q_);
    write_npy(path("k.npy"), k_shape(kShape), k_);
    write_npy(path("v.npy"), v_shape(kShape), v_);
    write_npy(path("mask.npy"), std::vector<std::size_t>{kShape.seq_q, kShape.seq_k}, mask_);
  }

  std::string path(const std::string& name) const { return (dir() / name).string(); }

  // The arguments naming the four files, then `extra`.
  std::vector<std::string> args_with(std::vector<std::string> extra) const {
    std::vector<std::string> args{"--q", path("q.npy"), "--k", path("k.npy"), "--v", path("v.npy"),
                                  "--out", path("out.npy")};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  // Runs sdpa, which must succeed silently, and reads its output file.
  NpyArray output_of(const std::vector<std::string>& args) const {
    const tokenizer::test::ProcessResult r = run_sdpa(args);
    EXPECT_EQ(r.exit_code, 0) << "stderr: " << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out, "");
    return read_npy(path("out.npy"));
  }

  std::vector<float> expected_output(const Options& options, void (*run)(const AttentionProblem&)) const {
    std::vector<float> out(kShape.out_elements());
    run({.shape = kShape,
         .q = q_,
         .k = k_,
         .v = v_,
         .mask = options.mask ? std::span<const float>(mask_) : std::span<const float>(),
         .causal = options.causal,
         .scale = options.scale_value(),
         .out = out});
    return out;
  }

  // A run that must fail: nothing on stdout, one "sdpa: " message naming the fault, no output
  // file and nothing else new in the folder.
  void expect_failure(const std::vector<std::string>& args, int exit_code, const std::string& fault) const {
    const std::vector<std::string> before = entries();
    const tokenizer::test::ProcessResult r = run_sdpa(args);
    EXPECT_EQ(r.exit_code, exit_code) << "stderr: " << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(r.err.starts_with("sdpa: ")) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(fault), std::string::npos) << "expected '" << fault << "' in: " << r.err;
    EXPECT_EQ(entries(), before);
  }

  // The output of a bfloat16 implementation on the inputs rounded to bfloat16, widened back.
  std::vector<float> expected_bf16_output(const Options& options, void (*run)(const Bf16AttentionProblem&)) const {
    const auto rounded = [](const std::vector<float>& values) {
      std::vector<bfloat16> narrow(values.size());
      to_bfloat16(values, narrow);
      return narrow;
    };
    const std::vector<bfloat16> q = rounded(q_), k = rounded(k_), v = rounded(v_);
    std::vector<bfloat16> out(kShape.out_elements());
    run({.shape = kShape,
         .q = q,
         .k = k,
         .v = v,
         .mask = options.mask ? std::span<const float>(mask_) : std::span<const float>(),
         .causal = options.causal,
         .scale = options.scale_value(),
         .out = out});
    std::vector<float> wide(out.size());
    to_float(out, wide);
    return wide;
  }

  std::vector<float> q_, k_, v_, mask_;
};

class SdpaCliOptions : public SdpaCli, public ::testing::WithParamInterface<Options> {};

TEST_P(SdpaCliOptions, ReferenceIsExactlyTheInProcessReference) {
  const NpyArray out = output_of(args_with([&] {
    std::vector<std::string> args = GetParam().args(dir());
    args.insert(args.end(), {"--impl", "reference"});
    return args;
  }()));
  EXPECT_EQ(out.shape, out_shape(kShape));
  expect_same_bits(expected_output(GetParam(), sdpa_reference), out.values);
}

TEST_P(SdpaCliOptions, EveryImplementationAgreesWithTheReference) {
  const std::vector<float> expected = expected_output(GetParam(), sdpa_reference);
  for (const Implementation& implementation : cpu_implementations()) {
    if (!implementation.is_supported()) continue;
    SCOPED_TRACE(implementation.name);
    std::vector<std::string> args = GetParam().args(dir());
    args.insert(args.end(), {"--impl", std::string(implementation.name)});
    const NpyArray out = output_of(args_with(args));
    ASSERT_EQ(out.values.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_NEAR(out.values[i], expected[i], 1e-5 + 5e-6 * std::abs(expected[i])) << "value " << i;
  }
}

TEST_P(SdpaCliOptions, Bf16IsExactlyTheInProcessBf16Implementation) {
  for (const Bf16Implementation& implementation : cpu_bf16_implementations()) {
    if (!implementation.is_supported()) continue;
    SCOPED_TRACE(implementation.name);
    std::vector<std::string> args = GetParam().args(dir());
    args.insert(args.end(), {"--dtype", "bf16", "--impl", std::string(implementation.name)});
    const NpyArray out = output_of(args_with(args));
    EXPECT_EQ(out.shape, out_shape(kShape));
    expect_same_bits(expected_bf16_output(GetParam(), implementation.run), out.values);
  }
  // Without --impl, the library's default bfloat16 implementation.
  std::vector<std::string> args = GetParam().args(dir());
  args.insert(args.end(), {"--dtype=bf16"});
  expect_same_bits(expected_bf16_output(GetParam(), default_cpu_bf16_implementation().run),
                   output_of(args_with(args)).values);
}

// A pin that is neither 1 nor 0 is refused with its name and value, wherever the CPU stands.
TEST_F(SdpaCli, RefusesABfloat16PinThatIsNeitherOneNorZero) {
  const tokenizer::test::ProcessResult r = tokenizer::test::run_process(
      {TOKBENCH_SDPA_BINARY, args_with({"--dtype", "bf16"}), {}, {{"TOKBENCH_BF16_PAIRS", "yes"}}});
  EXPECT_EQ(r.exit_code, kExitRuntimeError) << r.err;
  EXPECT_NE(r.err.find("TOKBENCH_BF16_PAIRS=yes: not 1"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SdpaCliOptions,
    ::testing::Values(Options{.name = "Plain"}, Options{.name = "Mask", .mask = true},
                      Options{.name = "TopLeft", .causal = CausalAlignment::top_left},
                      Options{.name = "BottomRight", .causal = CausalAlignment::bottom_right},
                      Options{.name = "Scale", .scale = "0.3"},
                      Options{.name = "ScaleInExponentForm", .scale = "2.5e-1"},
                      Options{.name = "MaskTopLeft", .mask = true, .causal = CausalAlignment::top_left},
                      Options{.name = "MaskBottomRightScale", .mask = true, .causal = CausalAlignment::bottom_right,
                              .scale = "1.75"}),
    [](const ::testing::TestParamInfo<Options>& info) { return info.param.name; });

// What `sdpa --impl` offers for float32, in --list order: the CPU registry, then the OpenCL kernels.
std::vector<Implementation> every_implementation() {
  std::vector<Implementation> all(cpu_implementations().begin(), cpu_implementations().end());
  all.insert(all.end(), gpu::opencl_implementations().begin(), gpu::opencl_implementations().end());
  return all;
}

// Name, description and support of every line of --list: the float32 implementations, then the
// bfloat16 ones.
struct ListedImplementation {
  std::string_view name, description;
  bool supported;
};
std::vector<ListedImplementation> every_listed_implementation() {
  std::vector<ListedImplementation> all;
  for (const Implementation& i : every_implementation()) all.push_back({i.name, i.description, i.is_supported()});
  for (const Bf16Implementation& i : cpu_bf16_implementations())
    all.push_back({i.name, i.description, i.is_supported()});
  return all;
}

TEST_F(SdpaCli, OptionsChangeTheOutput) {
  // Each option's output differs from the plain one's, so the exact comparisons above could not
  // pass with an option ignored.
  const std::vector<float> plain = output_of(args_with({"--impl", "reference"})).values;
  for (const std::vector<std::string>& option :
       {std::vector<std::string>{"--mask", path("mask.npy")}, {"--causal", "top-left"}, {"--causal", "bottom-right"},
        {"--scale", "0.3"}}) {
    SCOPED_TRACE(option[0] + " " + option[1]);
    std::vector<std::string> args = option;
    args.insert(args.end(), {"--impl", "reference"});
    EXPECT_NE(output_of(args_with(args)).values, plain);
  }
}

TEST_F(SdpaCli, FullyMaskedRowsAreZeros) {
  const NpyArray out = output_of(args_with({"--mask", path("mask.npy"), "--impl", "reference"}));
  for (std::size_t bh = 0; bh < kShape.batch * kShape.heads; ++bh)
    for (std::size_t c = 0; c < kShape.value_dim; ++c)
      EXPECT_EQ(out.values[(bh * kShape.seq_q + kFullyMaskedRow) * kShape.value_dim + c], 0.0f);
}

TEST_F(SdpaCli, DefaultImplementationIsTheLibrarysDefault) {
  const Options options{.name = "MaskTopLeft", .mask = true, .causal = CausalAlignment::top_left};
  expect_same_bits(expected_output(options, default_cpu_implementation().run),
                   output_of(args_with(options.args(dir()))).values);
}

TEST_F(SdpaCli, OptionValuesMayFollowAnEqualsSign) {
  const Options options{.name = "Inline", .mask = true, .causal = CausalAlignment::bottom_right, .scale = "0.5"};
  const NpyArray out = output_of({"--q=" + path("q.npy"), "--k=" + path("k.npy"), "--v=" + path("v.npy"),
                                  "--mask=" + path("mask.npy"), "--causal=bottom-right", "--scale=0.5",
                                  "--impl=reference", "--out=" + path("out.npy")});
  expect_same_bits(expected_output(options, sdpa_reference), out.values);
}

TEST_F(SdpaCli, ReplacesAnExistingOutputFile) {
  write_file("out.npy", "an older file");
  EXPECT_EQ(output_of(args_with({})).shape, out_shape(kShape));
  EXPECT_EQ(entries(), (std::vector<std::string>{"k.npy", "mask.npy", "out.npy", "q.npy", "v.npy"}));
}

TEST_F(SdpaCli, FailureLeavesAnExistingOutputFileAsItWas) {
  write_file("out.npy", "an older file");
  write_file("v.npy", "not an array");
  expect_failure(args_with({}), kExitRuntimeError, "not a .npy file");
  EXPECT_EQ(read_binary(path("out.npy")), "an older file");
}

TEST_F(SdpaCli, SmallestProblemAndNonFiniteInputs) {
  // One query and one key: O is that key's V row whatever the score, and zeros once a -inf mask
  // term hides the key.
  write_npy(path("q1.npy"), std::vector<std::size_t>{1, 1, 1, 1}, std::vector<float>{3});
  write_npy(path("k1.npy"), std::vector<std::size_t>{1, 1, 1, 1}, std::vector<float>{-2});
  write_npy(path("v1.npy"), std::vector<std::size_t>{1, 1, 1, 2}, std::vector<float>{1.25f, -7});
  write_npy(path("m1.npy"), std::vector<std::size_t>{1, 1}, std::vector<float>{kMinusInfinity});
  const std::vector<std::string> files{"--q", path("q1.npy"), "--k", path("k1.npy"), "--v", path("v1.npy"),
                                       "--out", path("out.npy"), "--impl", "reference"};
  NpyArray out = output_of(files);
  EXPECT_EQ(out.shape, (std::vector<std::size_t>{1, 1, 1, 2}));
  EXPECT_EQ(out.values, (std::vector<float>{1.25f, -7}));
  std::vector<std::string> masked = files;
  masked.insert(masked.end(), {"--mask", path("m1.npy")});
  EXPECT_EQ(output_of(masked).values, (std::vector<float>{0, 0}));
}

TEST_F(SdpaCli, HelpDocumentsEveryOptionShapeAndImplementation) {
  const tokenizer::test::ProcessResult r = run_sdpa({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  const std::string& help = r.out;
  for (const std::string fact :
       {"Usage: sdpa", "--q FILE", "--k FILE", "--v FILE", "--mask FILE", "--causal KIND", "none", "top-left",
        "bottom-right", "--scale S", "1 / sqrt(head_dim)", "--dtype TYPE", "float32", "bf16", "ties to even",
        "--impl NAME", "--out FILE", "--list", "-h, --help",
        "[batch, heads, seq_q, head_dim]", "[batch, kv_heads, seq_k, head_dim]",
        "[batch, kv_heads, seq_k, value_dim]", "[seq_q, seq_k]", "[batch, heads, seq_q, value_dim]", "'<f4'",
        "Exit status: 0 on success, 1 on a runtime error", "2 on a usage error"})
    EXPECT_NE(help.find(fact), std::string::npos) << fact;
  for (const Implementation& implementation : cpu_implementations()) {
    EXPECT_NE(help.find(std::string(implementation.name) + ": " + std::string(implementation.description)),
              std::string::npos)
        << implementation.name;
  }
  for (const Bf16Implementation& implementation : cpu_bf16_implementations()) {
    EXPECT_NE(help.find(std::string(implementation.name) + ": " + std::string(implementation.description)),
              std::string::npos)
        << implementation.name;
  }
  EXPECT_NE(help.find("(default: " + std::string(default_cpu_implementation().name) + ","), std::string::npos);
  EXPECT_EQ(run_sdpa({"-h"}).out, help);
  // --help wins over everything after it, even missing required options.
  EXPECT_EQ(run_sdpa({"--causal", "top-left", "--help", "--bogus"}).out, help);
}

TEST_F(SdpaCli, ListShowsEachImplementationOnALineOfItsOwn) {
  const tokenizer::test::ProcessResult r = run_sdpa({"--list"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < r.out.size();) {
    const std::size_t end = r.out.find('\n', start);
    ASSERT_NE(end, std::string::npos) << "last line unterminated";
    lines.push_back(r.out.substr(start, end - start));
    start = end + 1;
  }
  const std::vector<ListedImplementation> all = every_listed_implementation();
  ASSERT_EQ(lines.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    SCOPED_TRACE(all[i].name);
    EXPECT_TRUE(lines[i].starts_with(std::string(all[i].name) + " ")) << lines[i];
    EXPECT_NE(lines[i].find(all[i].description), std::string::npos) << lines[i];
    EXPECT_EQ(lines[i].ends_with(" (not supported on this machine)"), !all[i].supported) << lines[i];
  }
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.find(" (default)") != std::string::npos; }),
            1);
}

TEST_F(SdpaCli, UnsupportedImplementationIsAUsageError) {
  const std::vector<Implementation> all = every_implementation();
  for (const Implementation& implementation : all) {
    if (implementation.is_supported()) continue;
    SCOPED_TRACE(implementation.name);
    expect_failure(args_with({"--impl", std::string(implementation.name)}), kExitUsageError,
                   "implementation '" + std::string(implementation.name) + "' is not supported on this machine");
  }
}

TEST_F(SdpaCli, UsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {args_with({"--frobnicate"}), "unknown option '--frobnicate' (see --help)"},
      {args_with({"-x"}), "unknown option '-x'"},
      {args_with({"extra.npy"}), "unexpected argument 'extra.npy'"},
      {{"--k", path("k.npy"), "--v", path("v.npy"), "--out", path("out.npy")},
       "missing required option --q (see --help)"},
      {{"--q", path("q.npy"), "--v", path("v.npy"), "--out", path("out.npy")}, "missing required option --k "},
      {{"--q", path("q.npy"), "--k", path("k.npy"), "--out", path("out.npy")}, "missing required option --v "},
      {{"--q", path("q.npy"), "--k", path("k.npy"), "--v", path("v.npy")}, "missing required option --out "},
      {{}, "missing required options --q, --k, --v, --out"},
      {{"--q"}, "option --q needs a value"},
      {args_with({"--mask"}), "option --mask needs a value"},
      {args_with({"--scale"}), "option --scale needs a value"},
      {args_with({"--q", path("q.npy")}), "option --q given twice"},
      {args_with({"--causal", "none", "--causal=top-left"}), "option --causal given twice"},
      {args_with({"--q="}), "option --q needs a non-empty file name"},
      {args_with({"--out", ""}), "option --out needs a non-empty file name"},
      {args_with({"--list=yes"}), "option --list takes no value"},
      {args_with({"--help=1"}), "option --help takes no value"},
      {args_with({"--causal", "causal"}),
       "unknown causal alignment 'causal' (expected none, top-left or bottom-right)"},
      {args_with({"--causal", "TOP-LEFT"}), "unknown causal alignment 'TOP-LEFT'"},
      {args_with({"--scale", "abc"}), "bad scale 'abc' (expected a positive finite number"},
      {args_with({"--scale", "0"}), "bad scale '0'"},
      {args_with({"--scale", "-0.5"}), "bad scale '-0.5'"},
      {args_with({"--scale", "inf"}), "bad scale 'inf'"},
      {args_with({"--scale", "nan"}), "bad scale 'nan'"},
      {args_with({"--scale", "1e60"}), "bad scale '1e60'"},
      {args_with({"--scale", "0.5x"}), "bad scale '0.5x'"},
      {args_with({"--scale", ""}), "bad scale ''"},
      {args_with({"--impl", "warp"}), "unknown implementation 'warp' (registered: reference, flash"},
      {args_with({"--impl", "warp"}), "reference_bf16, flash_bf16, decode_bf16)"},
      {args_with({"--dtype", "fp16"}), "unknown dtype 'fp16' (expected float32 or bf16)"},
      {args_with({"--dtype", "bf16", "--dtype", "bf16"}), "option --dtype given twice"},
      {args_with({"--impl", "flash_bf16"}), "implementation 'flash_bf16' computes in bfloat16: add --dtype bf16"},
      {args_with({"--dtype", "bf16", "--impl", "flash"}),
       "implementation 'flash' computes in float32; with --dtype bf16: reference_bf16, flash_bf16"},
      {args_with({"--impl", "warp", "--dtype", "bf16"}), "unknown implementation 'warp'"},
  };
  for (const auto& [args, fault] : cases) {
    SCOPED_TRACE(fault);
    expect_failure(args, kExitUsageError, fault);
  }
}

// Rewrites one input with another shape (random values) or replaces it with `bytes`.
class SdpaCliInputError : public SdpaCli {
 protected:
  void reshape(const std::string& name, const std::vector<std::size_t>& shape) const {
    std::size_t count = 1;
    for (const std::size_t d : shape) count *= d;
    write_npy(path(name), shape, random_values(count, 11));
  }
  void expect_input_error(const std::string& fault, std::vector<std::string> extra = {}) const {
    expect_failure(args_with(std::move(extra)), kExitRuntimeError, fault);
  }
};

TEST_F(SdpaCliInputError, MissingOrUnreadableFile) {
  fs::remove(path("k.npy"));
  expect_input_error(path("k.npy") + ": cannot open: No such file or directory");
  fs::create_directory(path("k.npy"));
  expect_input_error(path("k.npy") + ": cannot read: Is a directory");
}

TEST_F(SdpaCliInputError, MalformedNpy) {
  write_file("q.npy", "\x93NUMPY\x01");
  expect_input_error(path("q.npy") + ": truncated header");
}

TEST_F(SdpaCliInputError, WrongDtypeNamesTheFileAndTheDtype) {
  const std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 7, 6), }\n";
  write_file("v.npy", std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header +
                          std::string(2 * 2 * 7 * 6 * 8, '\0'));
  expect_input_error(path("v.npy") + ": unsupported dtype '<f8' (float64): only little-endian float32 ('<f4') is read");
}

TEST_F(SdpaCliInputError, WrongRanks) {
  reshape("q.npy", {4, 5, 8});
  expect_input_error(path("q.npy") + ": Q must be 4-d [batch, heads, seq_q, head_dim], its shape is (4, 5, 8)");
  reshape("q.npy", q_shape(kShape));
  reshape("k.npy", {2, 2, 7, 8, 1});
  expect_input_error(path("k.npy") +
                     ": K must be 4-d [batch, kv_heads, seq_k, head_dim], its shape is (2, 2, 7, 8, 1)");
  reshape("k.npy", k_shape(kShape));
  reshape("v.npy", {});
  expect_input_error(path("v.npy") + ": V must be 4-d [batch, kv_heads, seq_k, value_dim], its shape is ()");
  reshape("v.npy", v_shape(kShape));
  reshape("mask.npy", {35});
  expect_input_error(path("mask.npy") + ": mask must be 2-d [seq_q, seq_k], its shape is (35,)",
                     {"--mask", path("mask.npy")});
}

TEST_F(SdpaCliInputError, ShapesThatDoNotFitNameBothFilesAndShapes) {
  const std::string q = "Q's shape (2, 4, 5, 8) (" + path("q.npy") + ")";
  const std::string k = "K's shape (2, 2, 7, 8) (" + path("k.npy") + ")";
  reshape("k.npy", {1, 2, 7, 8});
  expect_input_error(path("k.npy") + ": K's shape (1, 2, 7, 8) does not fit " + q + ": K's batch is 1, Q's is 2");
  reshape("k.npy", {2, 2, 7, 9});
  expect_input_error(path("k.npy") + ": K's shape (2, 2, 7, 9) does not fit " + q + ": K's head_dim is 9, Q's is 8");
  reshape("k.npy", {2, 3, 7, 8});
  expect_input_error(path("k.npy") + ": K's shape (2, 3, 7, 8) does not fit " + q +
                     ": Q's heads (4) are not a multiple of K's kv_heads (3)");
  reshape("k.npy", k_shape(kShape));
  reshape("v.npy", {1, 2, 7, 6});
  expect_input_error(path("v.npy") + ": V's shape (1, 2, 7, 6) does not fit " + k + ": V's batch is 1, K's is 2");
  reshape("v.npy", {2, 1, 7, 6});
  expect_input_error(path("v.npy") + ": V's shape (2, 1, 7, 6) does not fit " + k + ": V's kv_heads is 1, K's is 2");
  reshape("v.npy", {2, 2, 6, 6});
  expect_input_error(path("v.npy") + ": V's shape (2, 2, 6, 6) does not fit " + k + ": V's seq_k is 6, K's is 7");
  reshape("v.npy", v_shape(kShape));
  reshape("mask.npy", {7, 5});
  expect_input_error(path("mask.npy") + ": mask's shape (7, 5) does not fit " + q + ": mask's seq_q is 7, Q's is 5",
                     {"--mask", path("mask.npy")});
  reshape("mask.npy", {5, 8});
  expect_input_error(path("mask.npy") + ": mask's shape (5, 8) does not fit " + k + ": mask's seq_k is 8, K's is 7",
                     {"--mask", path("mask.npy")});
}

TEST_F(SdpaCliInputError, LimitsOfASingleShapeComeFromValidate) {
  reshape("q.npy", {2, 4, 0, 8});
  expect_input_error("seq_q is zero");
  reshape("q.npy", {2, 4, 5, 300});
  reshape("k.npy", {2, 2, 7, 300});
  expect_input_error("head_dim 300 exceeds the maximum 256");
}

TEST_F(SdpaCliInputError, UnwritableOutput) {
  std::vector<std::string> args = args_with({});
  args[7] = path("absent/out.npy");
  expect_failure(args, kExitRuntimeError, path("absent/out.npy") + ": cannot write: No such file or directory");
  fs::create_directory(path("out.npy"));
  expect_input_error(path("out.npy") + ": cannot write: Is a directory");
  EXPECT_TRUE(fs::is_directory(path("out.npy")));
}

// Header-only files claiming a problem of 256 TiB, with zero seq_k and head_dim: refused for the
// zero before anything is allocated (the output was once allocated first: std::bad_alloc).
TEST_F(SdpaCliInputError, AClaimedShapeIsValidatedBeforeAnyAllocation) {
  const auto header_only = [&](const std::string& name, const std::string& shape) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    header.resize(117, ' ');
    write_file(name, std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() + 1) + '\0' + header + '\n');
  };
  header_only("q.npy", "(1048576, 1024, 16384, 0)");
  header_only("k.npy", "(1048576, 1024, 0, 0)");
  header_only("v.npy", "(1048576, 1024, 0, 4)");
  for (const char* implementation : {"reference", "flash"}) expect_input_error("seq_k is zero", {"--impl", implementation});
}

// A valid problem whose output (1 GiB: Q's head_dim is 1, V's value_dim 256) cannot be held in
// the memory the process may use, here half a GiB by ulimit -v: refused before allocating,
// with the bytes it needs.
TEST_F(SdpaCliInputError, AnOutputBeyondUsableMemoryIsRefusedWithItsSize) {
#ifdef TOKBENCH_SANITIZED
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v under it";
#endif
  reshape("q.npy", {1, 1, 1 << 20, 1});
  reshape("k.npy", {1, 1, 1, 1});
  reshape("v.npy", {1, 1, 1, 256});
  std::string command = "ulimit -v 524288 && exec '" + std::string(TOKBENCH_SDPA_BINARY) + "'";
  for (const std::string& arg : args_with({"--impl", "reference"})) command += " '" + arg + "'";
  const tokenizer::test::ProcessResult result = tokenizer::test::run_process({"/bin/sh", {"-c", command}, "", {}});
  EXPECT_EQ(result.exit_code, kExitRuntimeError);
  EXPECT_NE(result.err.find("sdpa: the output and reference's workspace need 1073743880 bytes (1.0 GiB), more than "
                            "the 536870912 bytes (0.5 GiB) this process may use"),
            std::string::npos)
      << result.err;
}

// The output path is checked after the problem and before the run, so a problem the kernels
// refuse is reported as such, and a path that cannot take O fails before any computing.
TEST_F(SdpaCliInputError, ProblemErrorsComeBeforeOutputErrors) {
  reshape("q.npy", {2, 4, 5, 300});
  reshape("k.npy", {2, 2, 7, 300});
  std::vector<std::string> args = args_with({});
  args[7] = path("absent/out.npy");
  expect_failure(args, kExitRuntimeError, "head_dim 300 exceeds the maximum 256");
}

}  // namespace
}  // namespace attention
