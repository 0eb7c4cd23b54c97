#include "sdpa_case.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <utility>

#include "attention/implementation_registry.hpp"

namespace attention::test {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kAbsoluteTolerance = 1e-5;
constexpr double kRelativeTolerance = 5e-6;

std::vector<float> uniform(std::size_t n, float gain, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-gain, gain);
  std::vector<float> values(n);
  for (float& x : values) x = dist(rng);
  return values;
}

std::vector<float> make_mask(const SdpaCase& c, std::mt19937& rng) {
  if (c.mask == MaskKind::none) return {};
  const std::size_t sq = c.shape.seq_q, sk = c.shape.seq_k;
  std::vector<float> mask = uniform(sq * sk, 2.0f, rng);
  std::uniform_int_distribution<int> one_in_seven(0, 6);
  for (float& x : mask)
    if (one_in_seven(rng) == 0) x = -kInf;
  for (std::size_t i = 0; i < sq; ++i) {
    for (std::size_t j = 0; j < sk; ++j) {
      const bool blocked = (c.mask == MaskKind::blocked_rows && i % 3 == 0) ||
                           (c.mask == MaskKind::blocking_visible && i % 2 == 0 && causally_visible(c, i, j));
      if (blocked) mask[i * sk + j] = -kInf;
    }
  }
  return mask;
}

AttentionShape shape(std::size_t batch, std::size_t heads, std::size_t kv_heads, std::size_t seq_q, std::size_t seq_k,
                     std::size_t head_dim, std::size_t value_dim) {
  return {batch, heads, kv_heads, seq_q, seq_k, head_dim, value_dim};
}

SdpaCase make_case(std::string label, AttentionShape shape, CausalAlignment causal = CausalAlignment::none,
                   MaskKind mask = MaskKind::none, std::optional<float> scale = std::nullopt, float query_gain = 1.0f) {
  return {std::move(label), shape, causal, mask, scale, query_gain};
}

constexpr auto kNone = CausalAlignment::none;
constexpr auto kTopLeft = CausalAlignment::top_left;
constexpr auto kBottomRight = CausalAlignment::bottom_right;

}  // namespace

bool causally_visible(const SdpaCase& c, std::size_t i, std::size_t j) {
  const auto sq = static_cast<long>(c.shape.seq_q), sk = static_cast<long>(c.shape.seq_k);
  const auto li = static_cast<long>(i), lj = static_cast<long>(j);
  switch (c.causal) {
    case CausalAlignment::none: return true;
    case CausalAlignment::top_left: return lj <= li;
    case CausalAlignment::bottom_right: return lj <= li + sk - sq;
  }
  return true;
}

SdpaInputs::SdpaInputs(const SdpaCase& c) {
  std::seed_seq seed(c.label.begin(), c.label.end());
  std::mt19937 rng(seed);
  q = uniform(c.shape.q_elements(), c.query_gain, rng);
  k = uniform(c.shape.k_elements(), 1.0f, rng);
  v = uniform(c.shape.v_elements(), 1.0f, rng);
  mask = make_mask(c, rng);
}

AttentionProblem SdpaInputs::problem(const SdpaCase& c, std::span<float> out) const {
  return {c.shape, q, k, v, mask, c.causal, c.scale, out};
}

std::vector<bool> rows_without_keys(const SdpaCase& c, const SdpaInputs& inputs) {
  const std::size_t sq = c.shape.seq_q, sk = c.shape.seq_k;
  std::vector<bool> rows(c.shape.batch * c.shape.heads * sq);
  for (std::size_t i = 0; i < sq; ++i) {
    bool none = true;
    for (std::size_t j = 0; j < sk && none; ++j)
      none = !causally_visible(c, i, j) || (!inputs.mask.empty() && inputs.mask[i * sk + j] == -kInf);
    for (std::size_t bh = 0; bh < c.shape.batch * c.shape.heads; ++bh) rows[bh * sq + i] = none;
  }
  return rows;
}

// Every listed value of each dimension (D 32, 64, 80, 128; Sq and Sk 1, 7, 64, 127, 512, 1000;
// GQA ratios 1, 2, 8), with Sq < Sk and Sq > Sk under both causal alignments, each mask kind
// alone and with causal masking, rows with no visible key, scores near +-80, Dv != D, dimensions
// that are no multiple of any vector width, the largest dimensions, custom scales and tile edges
// (the flash kernels tile queries by 96 and keys by 36 or 48). Sizes are kept such that the double
// reference stays fast.
const std::vector<SdpaCase>& decode_cases() {
  static const std::vector<SdpaCase> cases = {
      make_case("one_key_gqa4", {1, 32, 8, 1, 1, 128, 128}, kBottomRight),
      make_case("gqa1_keys_3001", {1, 4, 4, 1, 3001, 128, 128}, kBottomRight),
      make_case("gqa4_q4_keys_1000", {1, 8, 2, 4, 1000, 128, 128}, kBottomRight),
      make_case("gqa8_q4_keys_2500", {1, 8, 1, 4, 2500, 128, 128}, kBottomRight),
      make_case("one_group_keys_2048", {1, 4, 1, 1, 2048, 128, 128}, kBottomRight),
      make_case("one_group_keys_2049", {1, 4, 1, 2, 2049, 128, 128}, kBottomRight),
      make_case("rows_past_one_task", {1, 16, 1, 5, 700, 64, 64}, kBottomRight),
      make_case("gqa3_q2_dims_96", {1, 6, 2, 2, 777, 96, 96}, kBottomRight),
      // A vector's rows in its lanes (decode_lane_rows): 16 rows with odd dimensions and keys, and
      // 8 rows, AVX2's vector.
      make_case("gqa4_q4_odd_dims", {1, 8, 2, 4, 901, 37, 19}, kBottomRight),
      make_case("gqa4_q2_keys_777", {1, 8, 2, 2, 777, 64, 64}, kBottomRight),
      make_case("batch8_gqa4", {8, 8, 2, 1, 600, 128, 128}, kBottomRight),
      make_case("not_causal_gqa4", {1, 8, 2, 1, 2000, 128, 128}, kNone),
      make_case("top_left_q4", {1, 8, 2, 4, 1500, 64, 64}, kTopLeft),
      make_case("rows_fully_masked", {1, 8, 2, 4, 1500, 64, 64}, kBottomRight, MaskKind::blocked_rows),
      make_case("rows_masked_where_visible", {1, 8, 2, 4, 1500, 64, 64}, kTopLeft, MaskKind::blocking_visible),
      make_case("additive_mask_odd_dims", {2, 6, 2, 3, 1100, 37, 19}, kBottomRight, MaskKind::additive),
  };
  return cases;
}


const std::vector<SdpaCase>& agreement_cases() {
  static const std::vector<SdpaCase> cases = {
      make_case("single_key", shape(1, 1, 1, 1, 1, 32, 32)),
      make_case("short_queries_gqa2", shape(2, 4, 2, 7, 64, 64, 64)),
      make_case("one_query_long_keys", shape(1, 2, 2, 1, 1000, 128, 128)),
      make_case("long_queries_one_key", shape(1, 1, 1, 1000, 1, 80, 80)),
      make_case("square_127", shape(1, 2, 1, 127, 127, 128, 128)),
      make_case("gqa8_7x512_d80", shape(1, 8, 1, 7, 512, 80, 80)),
      make_case("top_left_square_1000", shape(1, 2, 1, 1000, 1000, 64, 64), kTopLeft),
      make_case("top_left_more_queries_gqa8", shape(1, 8, 1, 64, 7, 80, 80), kTopLeft),
      make_case("top_left_fewer_queries", shape(2, 2, 2, 127, 512, 32, 32), kTopLeft),
      make_case("top_left_tile_edges", shape(1, 2, 2, 97, 257, 64, 64), kTopLeft),
      make_case("bottom_right_kv_cache", shape(1, 2, 1, 127, 512, 64, 64), kBottomRight),
      make_case("bottom_right_decode", shape(1, 4, 2, 1, 1000, 128, 128), kBottomRight),
      make_case("bottom_right_more_queries", shape(1, 2, 2, 512, 127, 32, 32), kBottomRight),
      make_case("bottom_right_queries_1000_keys_64", shape(1, 1, 1, 1000, 64, 128, 32), kBottomRight),
      make_case("bottom_right_square_512", shape(1, 1, 1, 512, 512, 128, 128), kBottomRight),
      make_case("additive_mask", shape(2, 2, 1, 64, 127, 64, 64), kNone, MaskKind::additive),
      make_case("additive_top_left", shape(1, 2, 2, 127, 127, 32, 32), kTopLeft, MaskKind::additive),
      make_case("additive_bottom_right", shape(1, 1, 1, 7, 512, 80, 80), kBottomRight, MaskKind::additive),
      make_case("additive_long_rows", shape(1, 1, 1, 64, 1000, 64, 64), kNone, MaskKind::additive),
      make_case("blocked_rows", shape(1, 2, 2, 64, 64, 64, 64), kNone, MaskKind::blocked_rows),
      make_case("blocked_rows_top_left", shape(1, 2, 1, 127, 64, 32, 32), kTopLeft, MaskKind::blocked_rows),
      make_case("blocking_visible_top_left", shape(1, 2, 2, 64, 127, 64, 64), kTopLeft, MaskKind::blocking_visible),
      make_case("blocking_visible_bottom_right", shape(1, 1, 1, 127, 127, 80, 80), kBottomRight, MaskKind::blocking_visible),
      make_case("large_logits", shape(1, 2, 1, 127, 512, 64, 64), kNone, MaskKind::none, 1.0f, 8.0f),
      make_case("large_logits_bottom_right", shape(1, 2, 2, 64, 127, 128, 128), kBottomRight, MaskKind::none, 0.5f, 8.0f),
      make_case("value_dim_wider", shape(1, 2, 2, 64, 1000, 32, 128)),
      make_case("value_dim_narrower", shape(1, 2, 1, 127, 64, 128, 80)),
      make_case("odd_dims", shape(2, 3, 1, 7, 127, 5, 13), kTopLeft),
      make_case("odd_dims_masked", shape(1, 2, 2, 64, 127, 3, 1), kBottomRight, MaskKind::additive),
      make_case("largest_dims", shape(1, 1, 1, 64, 127, 256, 256), kTopLeft),
      make_case("custom_scale_small", shape(1, 2, 2, 64, 512, 64, 64), kNone, MaskKind::none, 0.05f),
      make_case("custom_scale_top_left", shape(1, 2, 1, 127, 127, 128, 128), kTopLeft, MaskKind::none, 0.7f),
  };
  return cases;
}

const std::vector<float>& reference_output(const SdpaCase& c) {
  static std::map<std::string, std::vector<float>> cache;
  auto [it, inserted] = cache.try_emplace(c.label);
  if (inserted) {
    it->second.assign(c.shape.out_elements(), std::nanf(""));
    const SdpaInputs inputs(c);
    sdpa_reference(inputs.problem(c, it->second));
  }
  return it->second;
}

::testing::AssertionResult agrees_with_reference(const SdpaCase& c, void (*run)(const AttentionProblem&)) {
  const std::vector<float>& expected = reference_output(c);
  std::vector<float> actual(expected.size(), std::nanf(""));
  const SdpaInputs inputs(c);
  run(inputs.problem(c, actual));

  std::size_t mismatches = 0, worst = 0;
  double worst_excess = -1;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double diff = std::abs(static_cast<double>(actual[i]) - expected[i]);
    const double tolerance = kAbsoluteTolerance + kRelativeTolerance * std::abs(static_cast<double>(expected[i]));
    if (!(diff <= tolerance)) {
      ++mismatches;
      const double excess = std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff - tolerance;
      if (excess > worst_excess) worst_excess = excess, worst = i;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  const std::size_t dv = c.shape.value_dim, sq = c.shape.seq_q;
  return ::testing::AssertionFailure() << mismatches << " of " << expected.size()
                                       << " outputs differ; worst at (batch*head " << worst / dv / sq << ", query "
                                       << worst / dv % sq << ", column " << worst % dv << "): " << actual[worst]
                                       << " vs reference " << expected[worst];
}

}  // namespace attention::test
