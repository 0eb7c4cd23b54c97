// The flash kernels of every instruction set this CPU runs (not only the one sdpa_flash picks)
// agree with the reference on the grid of sdpa_case.cpp, and treat NaN and infinities alike.
#include <gtest/gtest.h>

#include <string>

#include "flash_isa_entries.hpp"
#include "flash_sdpa.hpp"
#include "non_finite_semantics.hpp"
#include "sdpa_case.hpp"
#include "simd/flash_kernels.hpp"

namespace attention::test {
namespace {

// The kernels a test runs, set before each call: run() takes no context.
const simd::FlashKernels* g_kernels = nullptr;
void run_with_current_kernels(const AttentionProblem& problem) { sdpa_flash_with(*g_kernels, problem); }

class FlashIsaAgreement : public ::testing::TestWithParam<std::tuple<const simd::FlashIsa*, SdpaCase>> {};

TEST_P(FlashIsaAgreement, MatchesReference) {
  const auto& [entry, c] = GetParam();
  if (!isa::cpu_supports(entry->isa)) GTEST_SKIP() << "this CPU does not run " << isa::name(entry->isa);
  g_kernels = entry->kernels;
  EXPECT_TRUE(agrees_with_reference(c, run_with_current_kernels));
}

std::string isa_case_name(const ::testing::TestParamInfo<std::tuple<const simd::FlashIsa*, SdpaCase>>& info) {
  return std::string(isa::name(std::get<0>(info.param)->isa)) + "_" + std::get<1>(info.param).label;
}

INSTANTIATE_TEST_SUITE_P(Grid, FlashIsaAgreement,
                         ::testing::Combine(::testing::ValuesIn(flash_isa_entries()),
                                            ::testing::ValuesIn(agreement_cases())),
                         isa_case_name);

// Each ISA's exp2 must keep a NaN through its clamp (the operand order of maxps).
class FlashIsaNonFinite : public ::testing::TestWithParam<const simd::FlashIsa*> {};

TEST_P(FlashIsaNonFinite, PropagatesNaNAndZeroesMaskedRows) {
  const simd::FlashIsa* entry = GetParam();
  if (!isa::cpu_supports(entry->isa)) GTEST_SKIP() << "this CPU does not run " << isa::name(entry->isa);
  g_kernels = entry->kernels;
  EXPECT_TRUE(follows_non_finite_semantics(run_with_current_kernels));
}

INSTANTIATE_TEST_SUITE_P(All, FlashIsaNonFinite, ::testing::ValuesIn(flash_isa_entries()),
                         [](const ::testing::TestParamInfo<const simd::FlashIsa*>& info) {
                           return std::string(isa::name(info.param->isa));
                         });

TEST(FlashIsas, BestIsTheFirstUsable) {
  for (const simd::FlashIsa& entry : simd::all_flash_isas()) {
    if (!isa::is_usable(entry.isa)) continue;
    EXPECT_EQ(&simd::best_flash_isa(), &entry);
    return;
  }
  FAIL() << "not even the sse2 baseline is supported";
}

}  // namespace
}  // namespace attention::test
