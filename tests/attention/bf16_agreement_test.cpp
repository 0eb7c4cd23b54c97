// The bfloat16 type, and every bfloat16 implementation (the registry's, and the bfloat16 flash
// and decode kernels of every instruction set) on the grid of sdpa_case.cpp with its inputs rounded to
// bfloat16. Against the float reference of those same inputs (double inside), each must be as
// accurate as FlashAttention asks of its kernels: at most twice the largest error of a plain
// bfloat16 implementation (scores rounded to bfloat16 before the softmax, the weights P before
// P V, fp32 sums), and within PyTorch's bfloat16 tolerances (atol and rtol 5e-2). Rows that see
// no key are exactly zero, and NaN and infinities behave as in the float implementations.
// FlashAttention's rule bounds the largest error only, which output rounding dominates (a score
// scale 1% off passes it); as ours keep the scores in float, their mean error must also stay
// within 1.25 times the plain one's (measured: at most 1.02 times).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/bfloat16.hpp"
#include "attention/implementation_registry.hpp"
#include "attention/visible_keys.hpp"
#include "decode_sdpa.hpp"
#include "flash_sdpa.hpp"
#include "non_finite_semantics.hpp"
#include "sdpa_case.hpp"
#include "simd/bfloat16_lanes.hpp"
#include "simd/flash_kernels.hpp"

namespace attention::test {
namespace {

std::uint32_t bits_of(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

float float_of(std::uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// Round to nearest even the slow way: the two bfloat16 neighbours of a finite float, compared in
// double (exact: both and the float are doubles). Past the largest finite bfloat16 the neighbour
// above is an infinity, taken as 2^128 (the next value were the exponent unbounded), as IEEE
// rounding decides overflow.
std::uint16_t nearest_even(float x) {
  const std::uint32_t bits = bits_of(x);
  const auto below = static_cast<std::uint16_t>(bits >> 16);
  if ((bits & 0xffffu) == 0) return below;
  const auto above = static_cast<std::uint16_t>(below + 1);
  const double low = std::abs(static_cast<double>(to_float(bfloat16{below})));
  const double high = (above & 0x7fffu) == 0x7f80u ? std::ldexp(1.0, 128)
                                                  : std::abs(static_cast<double>(to_float(bfloat16{above})));
  const double magnitude = std::abs(static_cast<double>(x));
  if (magnitude - low < high - magnitude) return below;
  if (magnitude - low > high - magnitude) return above;
  return below % 2 == 0 ? below : above;
}

TEST(Bfloat16, RoundsToNearestEvenLikeTheSlowWay) {
  std::mt19937 rng(12345);
  std::uint32_t checked = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    const std::uint32_t bits = rng();
    const float x = float_of(bits);
    if (std::isnan(x)) continue;
    ASSERT_EQ(to_bfloat16(x).bits, nearest_even(x)) << std::hex << "float bits 0x" << bits;
    ++checked;
  }
  EXPECT_GT(checked, 990'000u);
}

TEST(Bfloat16, RoundsTiesToEvenAndKeepsSpecials) {
  EXPECT_EQ(to_bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(to_bfloat16(float_of(0x3f808000)).bits, 0x3f80);  // a tie, the even one below
  EXPECT_EQ(to_bfloat16(float_of(0x3f818000)).bits, 0x3f82);  // a tie, the even one above
  EXPECT_EQ(to_bfloat16(float_of(0x3f808001)).bits, 0x3f81);
  EXPECT_EQ(to_bfloat16(float_of(0x00018000)).bits, 0x0002);  // a subnormal tie: no flush to zero
  EXPECT_EQ(to_bfloat16(-0.0f).bits, 0x8000);
  EXPECT_EQ(to_bfloat16(std::numeric_limits<float>::infinity()).bits, 0x7f80);
  EXPECT_EQ(to_bfloat16(-std::numeric_limits<float>::infinity()).bits, 0xff80);
  EXPECT_EQ(to_bfloat16(std::numeric_limits<float>::max()).bits, 0x7f80);  // past the largest bfloat16
  // A NaN whose payload sits only in the low bits would truncate to an infinity: it stays NaN.
  EXPECT_TRUE(std::isnan(to_float(to_bfloat16(float_of(0x7f800001)))));
  EXPECT_EQ(to_bfloat16(float_of(0xff800001)).bits & 0x8000, 0x8000);
}

// The kernels round whole vectors (bfloat16_lanes, the same xsimd steps for every instruction
// set): here on this file's default architecture, bit for bit the scalar rounding on every tie (a
// low half of 0x8000 under each of the 65,536 high halves, NaNs and infinities among them), the
// values above and a million random patterns.
TEST(Bfloat16, VectorRoundingIsTheScalarOnes) {
  using Floats = xsimd::batch<float, xsimd::default_arch>;
  using Bits = xsimd::batch<std::int32_t, xsimd::default_arch>;
  constexpr std::size_t kLanes = Floats::size;
  std::vector<std::uint32_t> patterns = {0x3f800000, 0x3f808001, 0x00018000, 0x00008001, 0x80000000, 0x7f7fffff,
                                         0xff7fffff, 0x7f800001, 0xff800001, 0x7fc00000, 0xffffffff, 0x7f7f7fff};
  for (std::uint32_t high = 0; high <= 0xffff; ++high) patterns.push_back(high << 16 | 0x8000u);
  std::mt19937 random(7);
  for (int i = 0; i < 1 << 20; ++i) patterns.push_back(static_cast<std::uint32_t>(random()));
  while (patterns.size() % kLanes != 0) patterns.push_back(0);
  for (std::size_t i = 0; i < patterns.size(); i += kLanes) {
    alignas(64) float in[kLanes];
    alignas(64) std::int32_t out[kLanes];
    for (std::size_t lane = 0; lane < kLanes; ++lane) in[lane] = float_of(patterns[i + lane]);
    const Bits lanes = simd::bfloat16_lanes(Floats::load_aligned(in));
    lanes.store_aligned(out);
    for (std::size_t lane = 0; lane < kLanes; ++lane)
      ASSERT_EQ(static_cast<std::uint16_t>(out[lane]), to_bfloat16(in[lane]).bits)
          << "float bits 0x" << std::hex << patterns[i + lane];
  }
}

TEST(Bfloat16, WidensExactlyAndRoundsItsOwnValuesToThemselves) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const bfloat16 value{static_cast<std::uint16_t>(bits)};
    const float wide = to_float(value);
    ASSERT_EQ(bits_of(wide), bits << 16);
    if (!std::isnan(wide)) {
      ASSERT_EQ(to_bfloat16(wide), value);
    }
  }
}

TEST(Bfloat16, ConvertsSpansAndRefusesMismatchedSizes) {
  const std::vector<float> from = {1.0f, -2.5f, 3.0e38f};
  std::vector<bfloat16> narrow(3);
  to_bfloat16(from, narrow);
  std::vector<float> back(3);
  to_float(narrow, back);
  EXPECT_EQ(back, (std::vector<float>{1.0f, -2.5f, to_float(to_bfloat16(3.0e38f))}));
  std::vector<bfloat16> short_narrow(2);
  EXPECT_THROW(to_bfloat16(from, short_narrow), std::invalid_argument);
  EXPECT_THROW(to_float(narrow, std::span<float>(back).first(2)), std::invalid_argument);
}

// A case's inputs rounded to bfloat16, and the same values as floats.
struct Bf16Inputs {
  std::vector<bfloat16> q, k, v;
  std::vector<float> q_wide, k_wide, v_wide, mask;

  explicit Bf16Inputs(const SdpaCase& c) {
    const SdpaInputs inputs(c);
    mask = inputs.mask;
    round(inputs.q, q, q_wide);
    round(inputs.k, k, k_wide);
    round(inputs.v, v, v_wide);
  }

  Bf16AttentionProblem problem(const SdpaCase& c, std::span<bfloat16> out) const {
    return {c.shape, q, k, v, mask, c.causal, c.scale, out};
  }

 private:
  static void round(const std::vector<float>& from, std::vector<bfloat16>& narrow, std::vector<float>& wide) {
    narrow.resize(from.size());
    wide.resize(from.size());
    to_bfloat16(from, narrow);
    to_float(narrow, wide);
  }
};

// The float reference on the rounded inputs, once per case.
const std::vector<float>& bf16_reference(const SdpaCase& c) {
  static std::map<std::string, std::vector<float>> cache;
  auto [it, inserted] = cache.try_emplace(c.label);
  if (inserted) {
    const Bf16Inputs in(c);
    it->second.assign(c.shape.out_elements(), std::nanf(""));
    sdpa_reference(AttentionProblem{c.shape, in.q_wide, in.k_wide, in.v_wide, in.mask, c.causal, c.scale, it->second});
  }
  return it->second;
}

float round_to_bf16(float x) { return to_float(to_bfloat16(x)); }

// The plain bfloat16 attention FlashAttention measures its kernels against: products summed in
// float, each score rounded to bfloat16 after scaling, the mask added, the softmax in float, each
// weight rounded to bfloat16, P V summed in float and rounded to bfloat16.
std::vector<float> plain_bf16(const SdpaCase& c, const Bf16Inputs& in) {
  const AttentionShape& s = c.shape;
  const float scale = c.scale.value_or(default_scale(s));
  const KeyWindow window = key_window(s, c.causal);
  std::vector<float> out(s.out_elements()), scores(s.seq_k), row(s.value_dim);
  for (std::size_t bh = 0; bh < s.batch * s.heads; ++bh) {
    const std::size_t kv = bh / s.heads * s.kv_heads + bh % s.heads / (s.heads / s.kv_heads);
    for (std::size_t i = 0; i < s.seq_q; ++i) {
      const float* q = in.q_wide.data() + (bh * s.seq_q + i) * s.head_dim;
      const std::size_t visible = visible_keys(window, i);
      float max = -std::numeric_limits<float>::infinity();
      for (std::size_t j = 0; j < visible; ++j) {
        const float* k = in.k_wide.data() + (kv * s.seq_k + j) * s.head_dim;
        float dot = 0;
        for (std::size_t d = 0; d < s.head_dim; ++d) dot += q[d] * k[d];
        scores[j] = round_to_bf16(scale * dot) + (in.mask.empty() ? 0.0f : in.mask[i * s.seq_k + j]);
        max = std::max(max, scores[j]);
      }
      float sum = 0;
      for (std::size_t j = 0; j < visible; ++j) sum += scores[j] = std::exp(scores[j] - max);
      std::fill(row.begin(), row.end(), 0.0f);
      for (std::size_t j = 0; j < visible && max != -std::numeric_limits<float>::infinity(); ++j) {
        const float weight = round_to_bf16(scores[j] / sum);
        const float* v = in.v_wide.data() + (kv * s.seq_k + j) * s.value_dim;
        for (std::size_t col = 0; col < s.value_dim; ++col) row[col] += weight * v[col];
      }
      for (std::size_t col = 0; col < s.value_dim; ++col)
        out[(bh * s.seq_q + i) * s.value_dim + col] = round_to_bf16(row[col]);
    }
  }
  return out;
}

struct Errors {
  double largest = 0;
  double mean = 0;
};

Errors errors_of(const std::vector<float>& actual, const std::vector<float>& expected) {
  Errors e;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double error = std::abs(static_cast<double>(actual[i]) - expected[i]);
    e.largest = std::max(e.largest, error);
    e.mean += error;
  }
  e.mean /= static_cast<double>(expected.size());
  return e;
}

// plain_bf16's errors on a case, once per case.
const Errors& plain_errors(const SdpaCase& c) {
  static std::map<std::string, Errors> cache;
  auto [it, inserted] = cache.try_emplace(c.label);
  if (inserted) it->second = errors_of(plain_bf16(c, Bf16Inputs(c)), bf16_reference(c));
  return it->second;
}

// One bfloat16 implementation under test: a registry entry, or one ISA's flash or decode kernels.
struct Bf16Runner {
  std::string name;
  const Bf16Implementation* implementation = nullptr;
  const simd::Bf16FlashIsa* flash = nullptr;
  const simd::Bf16FlashIsa* decode = nullptr;

  bool runs_here() const {
    if (implementation != nullptr) return implementation->is_supported();
    return isa::cpu_supports(flash != nullptr ? flash->isa : decode->isa);
  }
  void run(const Bf16AttentionProblem& problem) const {
    if (implementation != nullptr)
      implementation->run(problem);
    else if (flash != nullptr)
      sdpa_flash_with(*flash->kernels, problem);
    else
      sdpa_decode_with(*decode->kernels, problem);
  }
  friend void PrintTo(const Bf16Runner& r, std::ostream* os) { *os << r.name; }
};

std::vector<Bf16Runner> runners() {
  std::vector<Bf16Runner> out;
  for (const Bf16Implementation& i : cpu_bf16_implementations()) out.push_back({std::string(i.name), &i});
  for (const simd::Bf16FlashIsa& entry : simd::all_bf16_flash_isas())
    out.push_back({"flash_bf16_" + std::string(isa::name(entry.isa)), nullptr, &entry});
  for (const simd::Bf16FlashIsa& entry : simd::all_bf16_flash_isas())
    out.push_back({"decode_bf16_" + std::string(isa::name(entry.isa)), nullptr, nullptr, &entry});
  return out;
}

std::vector<float> output_of(const Bf16Runner& runner, const SdpaCase& c) {
  const Bf16Inputs in(c);
  std::vector<bfloat16> out(c.shape.out_elements(), to_bfloat16(std::nanf("")));
  runner.run(in.problem(c, out));
  std::vector<float> wide(out.size());
  to_float(out, wide);
  return wide;
}

TEST(Bf16Registry, ListsReferenceThenFlashThenDecode) {
  const auto all = cpu_bf16_implementations();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].name, "reference_bf16");
  EXPECT_EQ(all[1].name, "flash_bf16");
  EXPECT_EQ(all[2].name, "decode_bf16");
  EXPECT_EQ(find_cpu_bf16_implementation("flash_bf16"), &all[1]);
  EXPECT_EQ(find_cpu_bf16_implementation("decode_bf16"), &all[2]);
  EXPECT_EQ(&default_cpu_bf16_implementation(), &all[1]);
  EXPECT_EQ(find_cpu_bf16_implementation("flash"), nullptr);
}

// The first usable, unless that is avx512bf16 and its products do not pay on this CPU: then the
// next, avx512f, which widens.
TEST(Bf16FlashIsas, BestIsTheFirstUsableWhoseProductsPay) {
  const auto all = simd::all_bf16_flash_isas();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!isa::is_usable(all[i].isa)) continue;
    const bool gives_way = all[i].isa == isa::Isa::avx512bf16 && !simd::bfloat16_pairs_pay_off();
    ASSERT_TRUE(!gives_way || (i + 1 < all.size() && all[i + 1].isa == isa::Isa::avx512f));
    EXPECT_EQ(&simd::best_bf16_flash_isa(), &all[gives_way ? i + 1 : i]);
    return;
  }
  FAIL() << "no usable ISA, not even sse2";
}

// Each probe runs and counts products, so that the choice above compares like with like.
TEST(Bf16FlashIsas, ProbesCountTheirProducts) {
  for (const simd::Bf16FlashIsa& entry : simd::all_bf16_flash_isas()) {
    if (!isa::cpu_supports(entry.isa)) continue;
    if (entry.isa == isa::Isa::amxbf16) {
      EXPECT_EQ(entry.kernels->products_per_round(), 4u * 16u * 16u * 32u);  // 4 tiles of 16 x 16 lanes, 32 a lane
    } else if (entry.isa == isa::Isa::avx512bf16) {
      EXPECT_EQ(entry.kernels->products_per_round(), 2u * 16u * 12u);  // two a lane, 12 chains
    } else {
      EXPECT_GT(entry.kernels->products_per_round(), 0u);
    }
    // 1,000 rounds of 2^-12 x 1 into each lane of every accumulator: their sum is exact in float.
    const float sum = entry.kernels->run_product_rounds(1000, 1.0f);
    EXPECT_FLOAT_EQ(sum, 1000.0f / 4096.0f * static_cast<float>(entry.kernels->products_per_round()));
  }
}

class Bf16Agreement : public ::testing::TestWithParam<std::tuple<Bf16Runner, SdpaCase>> {};

TEST_P(Bf16Agreement, IsAsAccurateAsPlainBf16AndWithinPyTorchsTolerances) {
  const auto& [runner, c] = GetParam();
  if (!runner.runs_here()) GTEST_SKIP() << "this CPU does not run " << runner.name;
  const std::vector<float>& expected = bf16_reference(c);
  const std::vector<float> actual = output_of(runner, c);
  std::size_t outside = 0, worst = 0;
  double worst_excess = -1;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double diff = std::abs(static_cast<double>(actual[i]) - expected[i]);
    const double tolerance = 5e-2 + 5e-2 * std::abs(static_cast<double>(expected[i]));
    if (!(diff <= tolerance)) {
      ++outside;
      const double excess = std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff - tolerance;
      if (excess > worst_excess) worst_excess = excess, worst = i;
    }
  }
  EXPECT_EQ(outside, 0u) << "worst at " << worst << ": " << actual[worst] << " vs reference " << expected[worst];
  const Errors ours = errors_of(actual, expected), plain = plain_errors(c);
  EXPECT_LE(ours.largest, 2 * plain.largest)
      << "largest error " << ours.largest << ", a plain bfloat16 implementation's " << plain.largest;
  EXPECT_LE(ours.mean, 1.25 * plain.mean)
      << "mean error " << ours.mean << ", a plain bfloat16 implementation's " << plain.mean;
}

TEST_P(Bf16Agreement, GivesZerosToRowsThatSeeNoKey) {
  const auto& [runner, c] = GetParam();
  if (!runner.runs_here()) GTEST_SKIP() << "this CPU does not run " << runner.name;
  const std::vector<bool> empty_rows = rows_without_keys(c, SdpaInputs(c));
  const std::vector<float> actual = output_of(runner, c);
  for (std::size_t row = 0; row < empty_rows.size(); ++row) {
    if (!empty_rows[row]) continue;
    for (std::size_t col = 0; col < c.shape.value_dim; ++col)
      ASSERT_EQ(actual[row * c.shape.value_dim + col], 0.0f) << "row " << row << " column " << col;
  }
}

std::string bf16_agreement_name(const ::testing::TestParamInfo<std::tuple<Bf16Runner, SdpaCase>>& info) {
  return std::get<0>(info.param).name + "_" + std::get<1>(info.param).label;
}

INSTANTIATE_TEST_SUITE_P(Grid, Bf16Agreement,
                         ::testing::Combine(::testing::ValuesIn(runners()), ::testing::ValuesIn(agreement_cases())),
                         bf16_agreement_name);

// The decode kernels of every instruction set on the shapes they are made for as well.
std::vector<Bf16Runner> decode_runners() {
  std::vector<Bf16Runner> out;
  for (const Bf16Runner& runner : runners())
    if (runner.decode != nullptr) out.push_back(runner);
  return out;
}

INSTANTIATE_TEST_SUITE_P(DecodeShapes, Bf16Agreement,
                         ::testing::Combine(::testing::ValuesIn(decode_runners()), ::testing::ValuesIn(decode_cases())),
                         bf16_agreement_name);

// The runner a float problem is handed to, set before each call: run() takes no context.
const Bf16Runner* g_runner = nullptr;

// A float problem through the runner: NaN, infinities and zeros are bfloat16 values, so the
// float semantics test applies to the rounded problem as it is.
void run_rounded(const AttentionProblem& problem) {
  const auto narrow = [](std::span<const float> from) {
    std::vector<bfloat16> to(from.size());
    to_bfloat16(from, to);
    return to;
  };
  const std::vector<bfloat16> q = narrow(problem.q), k = narrow(problem.k), v = narrow(problem.v);
  std::vector<bfloat16> out(problem.out.size());
  g_runner->run({problem.shape, q, k, v, problem.mask, problem.causal, problem.scale, out});
  to_float(out, problem.out);
}

class Bf16NonFinite : public ::testing::TestWithParam<Bf16Runner> {};

TEST_P(Bf16NonFinite, PropagatesNaNAndZeroesMaskedRows) {
  if (!GetParam().runs_here()) GTEST_SKIP() << "this CPU does not run " << GetParam().name;
  g_runner = &GetParam();
  EXPECT_TRUE(follows_non_finite_semantics(run_rounded));
}

INSTANTIATE_TEST_SUITE_P(All, Bf16NonFinite, ::testing::ValuesIn(runners()),
                         [](const ::testing::TestParamInfo<Bf16Runner>& info) { return info.param.name; });

}  // namespace
}  // namespace attention::test
