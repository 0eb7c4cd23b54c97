// Flash-Decoding (sdpa_decode) with the kernels of every instruction set this CPU runs (the
// registry's tests hold the chosen one to the whole agreement grid): the non-finite rules, and
// the shapes it is made for (a few queries of many grouped heads against long key ranges, odd
// dimensions and masks among them), under arenas of 1 and 16 threads, which cut the keys into
// different numbers of splits: boundaries on and off the kernels' key blocks, one key, a split
// past the last visible key, rows masked in some splits or all. (The bfloat16 decode kernels meet
// these shapes in bf16_agreement_test.cpp.)
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <string>
#include <vector>

#include "decode_sdpa.hpp"
#include "flash_isa_entries.hpp"
#include "non_finite_semantics.hpp"
#include "sdpa_case.hpp"
#include "simd/flash_kernels.hpp"

namespace attention::test {
namespace {

// The kernels a test runs, set before each call: run() takes no context.
const simd::FlashKernels* g_decode_kernels = nullptr;
void run_decode_with_current_kernels(const AttentionProblem& problem) { sdpa_decode_with(*g_decode_kernels, problem); }

class DecodeIsaNonFinite : public ::testing::TestWithParam<const simd::FlashIsa*> {};

TEST_P(DecodeIsaNonFinite, PropagatesNaNAndZeroesMaskedRows) {
  const simd::FlashIsa* entry = GetParam();
  if (!isa::cpu_supports(entry->isa)) GTEST_SKIP() << "this CPU does not run " << isa::name(entry->isa);
  g_decode_kernels = entry->kernels;
  EXPECT_TRUE(follows_non_finite_semantics(run_decode_with_current_kernels));
}

INSTANTIATE_TEST_SUITE_P(All, DecodeIsaNonFinite, ::testing::ValuesIn(flash_isa_entries()),
                         [](const ::testing::TestParamInfo<const simd::FlashIsa*>& info) {
                           return std::string(isa::name(info.param->isa));
                         });

class DecodeShapes
    : public ::testing::TestWithParam<std::tuple<const simd::FlashIsa*, SdpaCase, int>> {};

TEST_P(DecodeShapes, MatchReferenceWhateverTheSplits) {
  const auto& [entry, c, threads] = GetParam();
  if (!isa::cpu_supports(entry->isa)) GTEST_SKIP() << "this CPU does not run " << isa::name(entry->isa);
  g_decode_kernels = entry->kernels;
  tbb::task_arena arena(threads);
  const SdpaCase& problem = c;  // Clang 15 lambdas cannot capture structured bindings.
  ::testing::AssertionResult result = ::testing::AssertionFailure();
  arena.execute([&] { result = agrees_with_reference(problem, run_decode_with_current_kernels); });
  EXPECT_TRUE(result);
}

INSTANTIATE_TEST_SUITE_P(
    Decode, DecodeShapes,
    ::testing::Combine(::testing::ValuesIn(flash_isa_entries()), ::testing::ValuesIn(decode_cases()),
                       ::testing::Values(1, 16)),
    [](const ::testing::TestParamInfo<std::tuple<const simd::FlashIsa*, SdpaCase, int>>& info) {
      return std::string(isa::name(std::get<0>(info.param)->isa)) + "_" + std::get<1>(info.param).label + "_threads" +
             std::to_string(std::get<2>(info.param));
    });

}  // namespace
}  // namespace attention::test
