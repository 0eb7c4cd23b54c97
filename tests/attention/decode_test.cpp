// Flash-Decoding (sdpa_decode) with the kernels of every instruction set this CPU runs (the
// registry's tests hold the chosen one to the whole agreement grid): the non-finite rules, and
// the shapes it is made for (a few queries of many grouped heads against long key ranges, odd
// dimensions and masks among them), under arenas of 1 and 16 threads, which cut the keys into
// different numbers of splits: boundaries on and off the kernels' key blocks, one key, a split
// past the last visible key, rows masked in some splits or all.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <string>
#include <vector>

#include "decode_sdpa.hpp"
#include "non_finite_semantics.hpp"
#include "sdpa_case.hpp"
#include "simd/flash_kernels.hpp"

namespace attention::test {
namespace {

// The kernels a test runs, set before each call: run() takes no context.
const simd::FlashKernels* g_kernels = nullptr;
void run_with_current_kernels(const AttentionProblem& problem) { sdpa_decode_with(*g_kernels, problem); }

std::vector<const simd::FlashIsa*> all_isas() {
  std::vector<const simd::FlashIsa*> out;
  for (const simd::FlashIsa& entry : simd::all_flash_isas()) out.push_back(&entry);
  return out;
}

class DecodeIsaNonFinite : public ::testing::TestWithParam<const simd::FlashIsa*> {};

TEST_P(DecodeIsaNonFinite, PropagatesNaNAndZeroesMaskedRows) {
  const simd::FlashIsa* entry = GetParam();
  if (!isa::cpu_supports(entry->isa)) GTEST_SKIP() << "this CPU does not run " << isa::name(entry->isa);
  g_kernels = entry->kernels;
  EXPECT_TRUE(follows_non_finite_semantics(run_with_current_kernels));
}

INSTANTIATE_TEST_SUITE_P(All, DecodeIsaNonFinite, ::testing::ValuesIn(all_isas()),
                         [](const ::testing::TestParamInfo<const simd::FlashIsa*>& info) {
                           return std::string(isa::name(info.param->isa));
                         });

SdpaCase decode_case(std::string label, AttentionShape shape, CausalAlignment causal = CausalAlignment::bottom_right,
                     MaskKind mask = MaskKind::none) {
  return SdpaCase{.label = std::move(label), .shape = shape, .causal = causal, .mask = mask, .scale = {}, .query_gain = 1.0f};
}

// {batch, heads, kv_heads, seq_q, seq_k, head_dim, value_dim}
const std::vector<SdpaCase>& decode_cases() {
  static const std::vector<SdpaCase> cases = {
      decode_case("one_key_gqa4", {1, 32, 8, 1, 1, 128, 128}),
      decode_case("gqa1_keys_3001", {1, 4, 4, 1, 3001, 128, 128}),
      decode_case("gqa4_q4_keys_1000", {1, 8, 2, 4, 1000, 128, 128}),
      decode_case("gqa8_q4_keys_2500", {1, 8, 1, 4, 2500, 128, 128}),
      decode_case("one_group_keys_2048", {1, 4, 1, 1, 2048, 128, 128}),
      decode_case("one_group_keys_2049", {1, 4, 1, 2, 2049, 128, 128}),
      decode_case("rows_past_one_task", {1, 16, 1, 5, 700, 64, 64}),
      decode_case("batch8_gqa4", {8, 8, 2, 1, 600, 128, 128}),
      decode_case("not_causal_gqa4", {1, 8, 2, 1, 2000, 128, 128}, CausalAlignment::none),
      decode_case("top_left_q4", {1, 8, 2, 4, 1500, 64, 64}, CausalAlignment::top_left),
      decode_case("rows_fully_masked", {1, 8, 2, 4, 1500, 64, 64}, CausalAlignment::bottom_right,
                  MaskKind::blocked_rows),
      decode_case("rows_masked_where_visible", {1, 8, 2, 4, 1500, 64, 64}, CausalAlignment::top_left,
                  MaskKind::blocking_visible),
      decode_case("additive_mask_odd_dims", {2, 6, 2, 3, 1100, 37, 19}, CausalAlignment::bottom_right,
                  MaskKind::additive),
  };
  return cases;
}

class DecodeShapes
    : public ::testing::TestWithParam<std::tuple<const simd::FlashIsa*, SdpaCase, int>> {};

TEST_P(DecodeShapes, MatchReferenceWhateverTheSplits) {
  const auto& [entry, c, threads] = GetParam();
  if (!isa::cpu_supports(entry->isa)) GTEST_SKIP() << "this CPU does not run " << isa::name(entry->isa);
  g_kernels = entry->kernels;
  tbb::task_arena arena(threads);
  const SdpaCase& problem = c;  // Clang 15 lambdas cannot capture structured bindings.
  ::testing::AssertionResult result = ::testing::AssertionFailure();
  arena.execute([&] { result = agrees_with_reference(problem, run_with_current_kernels); });
  EXPECT_TRUE(result);
}

INSTANTIATE_TEST_SUITE_P(
    Decode, DecodeShapes,
    ::testing::Combine(::testing::ValuesIn(all_isas()), ::testing::ValuesIn(decode_cases()), ::testing::Values(1, 16)),
    [](const ::testing::TestParamInfo<std::tuple<const simd::FlashIsa*, SdpaCase, int>>& info) {
      return std::string(isa::name(std::get<0>(info.param)->isa)) + "_" + std::get<1>(info.param).label + "_threads" +
             std::to_string(std::get<2>(info.param));
    });

}  // namespace
}  // namespace attention::test
