#pragma once

#include <gtest/gtest.h>

#include "attention/attention_problem.hpp"

namespace attention::test {

// Runs `run` on small problems (every causal alignment, two query and three key tiles of the
// flash kernels) poisoned one way at a time, and checks what a NaN or an infinity must do, as in
// PyTorch: a query row whose visible scores hold a NaN (from Q, K or the mask) or a +inf (exp of
// inf - inf) is NaN in every column; a NaN in V makes its column NaN in the rows that see its key
// (checked without a causal limit); a row whose visible keys are all masked with -inf is zeros;
// keys a causal limit hides are never looked at; every other output element is, bit for bit, what
// `run` gives without the poison.
::testing::AssertionResult follows_non_finite_semantics(void (*run)(const AttentionProblem&));

}  // namespace attention::test
