#include "non_finite_semantics.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "sdpa_case.hpp"

namespace attention::test {

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInfinity = std::numeric_limits<float>::infinity();

// The poisoned query head, and two queries: one in each query tile of the flash kernels.
constexpr std::size_t kHead = 1;  // reads key/value head 0, as head 0 does
constexpr std::size_t kQuery = 20, kLateQuery = 97;
// A key every alignment shows kQuery, and one a top-left limit hides from query 5.
constexpr std::size_t kKey = 15, kLateKey = 30;
constexpr std::size_t kColumn = 3;

enum class Expect { unchanged, nan, zero };

struct Poison {
  std::string label;
  bool with_mask;
  // Whether it is also tried under the causal alignments (a NaN in V reaches every query that
  // sees its key, so its expectation is written for the unmasked case alone).
  bool under_causal;
  // Whether some output must be NaN: a poison that reaches no row would test nothing.
  bool makes_nan;
  std::function<void(const SdpaCase&, SdpaInputs&)> apply;
  // What output element (bh, i, c) must be.
  std::function<Expect(const SdpaCase&, std::size_t bh, std::size_t i, std::size_t c)> expect;
};

std::size_t kv_head_of(const AttentionShape& s, std::size_t bh) {
  return (bh / s.heads) * s.kv_heads + (bh % s.heads) / (s.heads / s.kv_heads);
}

std::vector<Poison> poisons() {
  const auto nan_if = [](bool condition) { return condition ? Expect::nan : Expect::unchanged; };
  return {
      {"nan_in_q", false, true, true,
       [](const SdpaCase& c, SdpaInputs& in) {
         in.q[(kHead * c.shape.seq_q + kQuery) * c.shape.head_dim + 5] = kNaN;
         in.q[(kHead * c.shape.seq_q + kLateQuery) * c.shape.head_dim] = kNaN;
       },
       [=](const SdpaCase&, std::size_t bh, std::size_t i, std::size_t) {
         return nan_if(bh == kHead && (i == kQuery || i == kLateQuery));
       }},
      // Every query's first element is positive (see below), so an infinite key element makes a
      // +inf score in every query head that reads it.
      {"inf_in_k", false, true, true,
       [](const SdpaCase& c, SdpaInputs& in) { in.k[kKey * c.shape.head_dim] = kInfinity; },
       [=](const SdpaCase& c, std::size_t bh, std::size_t i, std::size_t) {
         return nan_if(kv_head_of(c.shape, bh) == 0 && causally_visible(c, i, kKey));
       }},
      {"nan_in_mask", true, true, true,
       [](const SdpaCase& c, SdpaInputs& in) {
         in.mask[kQuery * c.shape.seq_k + kKey] = kNaN;
         in.mask[5 * c.shape.seq_k + kLateKey] = kNaN;
       },
       [=](const SdpaCase& c, std::size_t, std::size_t i, std::size_t) {
         return nan_if((i == kQuery && causally_visible(c, i, kKey)) || (i == 5 && causally_visible(c, i, kLateKey)));
       }},
      {"minus_inf_mask_row", true, true, false,
       [](const SdpaCase& c, SdpaInputs& in) {
         for (std::size_t j = 0; j < c.shape.seq_k; ++j) in.mask[kQuery * c.shape.seq_k + j] = -kInfinity;
       },
       [=](const SdpaCase&, std::size_t, std::size_t i, std::size_t) {
         return i == kQuery ? Expect::zero : Expect::unchanged;
       }},
      {"nan_in_v", false, false, true,
       [](const SdpaCase& c, SdpaInputs& in) { in.v[kKey * c.shape.value_dim + kColumn] = kNaN; },
       [=](const SdpaCase& c, std::size_t bh, std::size_t, std::size_t col) {
         return nan_if(kv_head_of(c.shape, bh) == 0 && col == kColumn);
       }},
  };
}

std::vector<float> run_on(void (*run)(const AttentionProblem&), const SdpaCase& c, const SdpaInputs& inputs) {
  std::vector<float> out(c.shape.out_elements(), 12345.0f);
  run(inputs.problem(c, out));
  return out;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

::testing::AssertionResult follows_non_finite_semantics(void (*run)(const AttentionProblem&)) {
  const AttentionShape shape{.batch = 1, .heads = 4, .kv_heads = 2, .seq_q = 100, .seq_k = 110, .head_dim = 40,
                             .value_dim = 24};
  std::size_t failures = 0;
  std::string report;
  for (const CausalAlignment causal :
       {CausalAlignment::none, CausalAlignment::top_left, CausalAlignment::bottom_right}) {
    for (const Poison& poison : poisons()) {
      if (!poison.under_causal && causal != CausalAlignment::none) continue;
      const SdpaCase c{.label = "non_finite_" + poison.label + "_" + std::string(to_string(causal)),
                       .shape = shape,
                       .causal = causal,
                       .mask = poison.with_mask ? MaskKind::additive : MaskKind::none,
                       .scale = std::nullopt,
                       .query_gain = 1.0f};
      SdpaInputs inputs(c);
      // Finite masks only, and positive first query elements, before the poison.
      for (float& m : inputs.mask) m = std::isinf(m) ? 0.5f : m;
      for (std::size_t row = 0; row < shape.q_elements() / shape.head_dim; ++row)
        inputs.q[row * shape.head_dim] = 0.25f + std::abs(inputs.q[row * shape.head_dim]);
      const std::vector<float> clean = run_on(run, c, inputs);
      poison.apply(c, inputs);
      const std::vector<float> out = run_on(run, c, inputs);

      std::size_t expected_nans = 0;
      for (std::size_t bh = 0; bh < shape.batch * shape.heads; ++bh) {
        for (std::size_t i = 0; i < shape.seq_q; ++i) {
          for (std::size_t col = 0; col < shape.value_dim; ++col) {
            const std::size_t e = (bh * shape.seq_q + i) * shape.value_dim + col;
            const Expect expect = poison.expect(c, bh, i, col);
            expected_nans += expect == Expect::nan;
            const bool ok = expect == Expect::nan    ? std::isnan(out[e])
                            : expect == Expect::zero ? out[e] == 0.0f
                                                     : same_bits(out[e], clean[e]) && std::isfinite(out[e]);
            if (!ok && ++failures <= 8) {
              const char* wanted = expect == Expect::nan ? "NaN" : expect == Expect::zero ? "0" : "the unpoisoned value";
              report += "\n" + c.label + ": head " + std::to_string(bh) + " query " + std::to_string(i) + " column " +
                        std::to_string(col) + " is " + std::to_string(out[e]) + ", not " + wanted + " (" +
                        std::to_string(clean[e]) + " unpoisoned)";
            }
          }
        }
      }
      if (poison.makes_nan && expected_nans == 0)
        return ::testing::AssertionFailure() << c.label << " expects no NaN: the test is broken";
    }
  }
  if (failures == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << failures << " output elements wrong, the first:" << report;
}

}  // namespace attention::test
