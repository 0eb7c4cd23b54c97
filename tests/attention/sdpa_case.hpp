#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attention/attention_problem.hpp"

namespace attention::test {

enum class MaskKind {
  none,
  // Uniform in [-2, 2], one entry in 7 -inf.
  additive,
  // As additive, plus every third query row entirely -inf.
  blocked_rows,
  // -inf on every key a causal row sees (keys past the diagonal finite), for every other row: with
  // a causal alignment those rows see no key.
  blocking_visible,
};

// One SDPA problem of the agreement grid. Q, K, V are uniform in [-1, 1], Q times query_gain.
struct SdpaCase {
  std::string label;
  AttentionShape shape;
  CausalAlignment causal = CausalAlignment::none;
  MaskKind mask = MaskKind::none;
  std::optional<float> scale;
  float query_gain = 1.0f;

  friend void PrintTo(const SdpaCase& c, std::ostream* os) { *os << c.label; }
};

// The inputs of a case, always the same for the same case.
struct SdpaInputs {
  std::vector<float> q, k, v, mask;

  explicit SdpaInputs(const SdpaCase& c);
  AttentionProblem problem(const SdpaCase& c, std::span<float> out) const;
};

// Key j of query i is visible under the case's causal alignment (the mask aside).
bool causally_visible(const SdpaCase& c, std::size_t i, std::size_t j);

// Per query row (index (b * heads + h) * seq_q + i): whether the causal alignment and the mask
// leave it no visible key, so that its output must be exactly zero.
std::vector<bool> rows_without_keys(const SdpaCase& c, const SdpaInputs& inputs);

// The grid every implementation is compared on (see sdpa_case.cpp for what it covers).
const std::vector<SdpaCase>& agreement_cases();
// The shapes decoding is made for: a few queries of many grouped heads against long key ranges
// (one key, key counts off every block and split size, GQA 1, 4 and 8, rows past one task),
// bottom-right causal but for a few, masks and odd dimensions among them.
const std::vector<SdpaCase>& decode_cases();

// The reference output of a case, computed once per test program.
const std::vector<float>& reference_output(const SdpaCase& c);

// Output of `c` from `run`, compared with reference_output: every element within
// atol 1e-5 + rtol 5e-6 * |reference| (a NaN never is).
::testing::AssertionResult agrees_with_reference(const SdpaCase& c, void (*run)(const AttentionProblem&));

}  // namespace attention::test
