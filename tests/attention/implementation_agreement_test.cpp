// Every CPU implementation but the reference agrees with the reference on the grid of
// sdpa_case.cpp, and gives exact zeros for query rows that see no key; every one, the reference
// included, propagates NaN as PyTorch does.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "attention/implementation_registry.hpp"
#include "non_finite_semantics.hpp"
#include "sdpa_case.hpp"

namespace attention::test {
namespace {

std::vector<const Implementation*> implementations_under_test() {
  std::vector<const Implementation*> out;
  for (const Implementation& i : cpu_implementations())
    if (i.name != "reference" && i.is_supported()) out.push_back(&i);
  return out;
}

std::string implementation_name(const ::testing::TestParamInfo<const Implementation*>& info) {
  return std::string(info.param->name);
}

TEST(ImplementationRegistry, ListsReferenceFirstThenFlashThenDecode) {
  const auto all = cpu_implementations();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].name, "reference");
  EXPECT_EQ(all[1].name, "flash");
  EXPECT_EQ(all[2].name, "decode");
  EXPECT_EQ(find_cpu_implementation("flash"), &all[1]);
  EXPECT_EQ(find_cpu_implementation("decode"), &all[2]);
  EXPECT_EQ(&default_cpu_implementation(), &all[1]);
  EXPECT_EQ(find_cpu_implementation("flash2"), nullptr);
}

class ImplementationAgreement : public ::testing::TestWithParam<std::tuple<const Implementation*, SdpaCase>> {};

TEST_P(ImplementationAgreement, MatchesReference) {
  const auto& [implementation, c] = GetParam();
  EXPECT_TRUE(agrees_with_reference(c, implementation->run));
}

std::string agreement_name(const ::testing::TestParamInfo<std::tuple<const Implementation*, SdpaCase>>& info) {
  return std::string(std::get<0>(info.param)->name) + "_" + std::get<1>(info.param).label;
}

INSTANTIATE_TEST_SUITE_P(Grid, ImplementationAgreement,
                         ::testing::Combine(::testing::ValuesIn(implementations_under_test()),
                                            ::testing::ValuesIn(agreement_cases())),
                         agreement_name);

class RowsWithoutKeys : public ::testing::TestWithParam<const Implementation*> {};

TEST_P(RowsWithoutKeys, AreExactlyZero) {
  std::size_t checked_rows = 0;
  for (const SdpaCase& c : agreement_cases()) {
    const SdpaInputs inputs(c);
    const std::vector<bool> empty_rows = rows_without_keys(c, inputs);
    std::vector<float> out(c.shape.out_elements(), std::nanf(""));
    GetParam()->run(inputs.problem(c, out));
    for (std::size_t row = 0; row < empty_rows.size(); ++row) {
      if (!empty_rows[row]) continue;
      ++checked_rows;
      for (std::size_t col = 0; col < c.shape.value_dim; ++col)
        ASSERT_EQ(out[row * c.shape.value_dim + col], 0.0f) << c.label << " row " << row << " column " << col;
    }
  }
  // The grid has such rows: bottom-right with more queries than keys, blocked mask rows.
  EXPECT_GT(checked_rows, 1000u);
}

INSTANTIATE_TEST_SUITE_P(All, RowsWithoutKeys, ::testing::ValuesIn(implementations_under_test()), implementation_name);

class NonFiniteInputs : public ::testing::TestWithParam<const Implementation*> {};

TEST_P(NonFiniteInputs, PropagateNaNAndLeaveMaskedRowsZero) {
  EXPECT_TRUE(follows_non_finite_semantics(GetParam()->run));
}

std::vector<const Implementation*> supported_implementations() {
  std::vector<const Implementation*> out;
  for (const Implementation& i : cpu_implementations())
    if (i.is_supported()) out.push_back(&i);
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, NonFiniteInputs, ::testing::ValuesIn(supported_implementations()), implementation_name);

}  // namespace
}  // namespace attention::test
