// validate() rejects each kind of bad argument with a message naming it, and every
// implementation validates before touching its output.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/attention_problem.hpp"
#include "attention/implementation_registry.hpp"

namespace attention {
namespace {

// A valid problem with its own buffers, for tests to break one thing of.
struct ValidProblem {
  AttentionShape shape{2, 4, 2, 5, 6, 8, 3};
  std::vector<float> q = std::vector<float>(shape.q_elements(), 0.5f);
  std::vector<float> k = std::vector<float>(shape.k_elements(), 0.25f);
  std::vector<float> v = std::vector<float>(shape.v_elements(), 1.0f);
  std::vector<float> mask = std::vector<float>(shape.mask_elements(), 0.0f);
  std::vector<float> out = std::vector<float>(shape.out_elements(), 7.0f);
  AttentionProblem problem{shape, q, k, v, mask, CausalAlignment::top_left, std::nullopt, out};
};

// The message of the std::invalid_argument that `check` throws, or "<no exception>".
template <class Check>
std::string rejection_message(const Check& check) {
  try {
    check();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<no exception>";
}

// What validate says of a float or a bfloat16 problem.
template <class Problem>
std::string validation_message(const Problem& problem) {
  return rejection_message([&] { validate(problem); });
}

void expect_rejected(const std::function<void(ValidProblem&)>& breakage, const std::string& fragment) {
  ValidProblem p;
  breakage(p);
  EXPECT_NE(validation_message(p.problem).find(fragment), std::string::npos)
      << "message: " << validation_message(p.problem) << "\nexpected to contain: " << fragment;
}

TEST(Validate, AcceptsAValidProblem) {
  ValidProblem p;
  EXPECT_NO_THROW(validate(p.problem));
  p.problem.mask = {};
  p.problem.scale = 0.3f;
  EXPECT_NO_THROW(validate(p.problem));
}

TEST(Validate, NamesAZeroDimension) {
  expect_rejected([](ValidProblem& p) { p.problem.shape.batch = 0; }, "batch is zero");
  expect_rejected([](ValidProblem& p) { p.problem.shape.heads = 0; }, "heads is zero");
  expect_rejected([](ValidProblem& p) { p.problem.shape.kv_heads = 0; }, "kv_heads is zero");
  expect_rejected([](ValidProblem& p) { p.problem.shape.seq_q = 0; }, "seq_q is zero");
  expect_rejected([](ValidProblem& p) { p.problem.shape.seq_k = 0; }, "seq_k is zero");
  expect_rejected([](ValidProblem& p) { p.problem.shape.head_dim = 0; }, "head_dim is zero");
  expect_rejected([](ValidProblem& p) { p.problem.shape.value_dim = 0; }, "value_dim is zero");
}

TEST(Validate, NamesHeadsNotAMultipleOfKvHeads) {
  expect_rejected([](ValidProblem& p) { p.problem.shape.kv_heads = 3; },
                  "heads (4) is not a multiple of kv_heads (3)");
}

TEST(Validate, NamesADimensionAboveTheMaximum) {
  expect_rejected([](ValidProblem& p) { p.problem.shape.head_dim = kMaxHeadDim + 1; },
                  "head_dim 257 exceeds the maximum 256");
  expect_rejected([](ValidProblem& p) { p.problem.shape.value_dim = 1000; }, "value_dim 1000 exceeds the maximum 256");
}

TEST(Validate, NamesASpanOfTheWrongSize) {
  expect_rejected([](ValidProblem& p) { p.problem.q = p.problem.q.first(p.q.size() - 1); },
                  "q holds 319 floats, the shape needs 320");
  expect_rejected([](ValidProblem& p) { p.problem.k = {}; }, "k holds 0 floats, the shape needs 192");
  expect_rejected([](ValidProblem& p) { p.problem.v = p.problem.v.first(10); }, "v holds 10 floats, the shape needs 72");
  expect_rejected([](ValidProblem& p) { p.problem.out = p.problem.out.first(1); },
                  "out holds 1 floats, the shape needs 120");
  expect_rejected([](ValidProblem& p) { p.problem.mask = p.problem.mask.first(29); },
                  "mask holds 29 floats, the shape needs 30");
  // A shape change alone also breaks the sizes.
  expect_rejected([](ValidProblem& p) { p.problem.shape.seq_k = 7; }, "k holds 192 floats, the shape needs 224");
}

TEST(Validate, NamesAShapeWhoseByteCountOverflows) {
  expect_rejected(
      [](ValidProblem& p) {
        p.problem.shape.batch = std::numeric_limits<std::size_t>::max() / 2;
        p.problem.shape.seq_q = 64;
      },
      "q has more bytes than size_t counts");
  // Elements that fit in size_t but whose bytes do not: q holds 160 * batch elements.
  expect_rejected([](ValidProblem& p) { p.problem.shape.batch = std::numeric_limits<std::size_t>::max() / 320; },
                  "q has more bytes than size_t counts");
  expect_rejected([](ValidProblem& p) { p.problem.shape.seq_k = std::numeric_limits<std::size_t>::max() / 64; },
                  "k has more bytes than size_t counts");
}

// validate_shape needs no buffers: a caller checks a shape with it before allocating for it.
TEST(ValidateShape, NamesTheShapesFaultsWithoutBuffers) {
  EXPECT_NO_THROW(validate_shape(ValidProblem().shape));
  const auto message = [](const AttentionShape& shape) { return rejection_message([&] { validate_shape(shape); }); };
  EXPECT_EQ(message({.batch = 1 << 20, .heads = 1 << 10, .seq_q = 1 << 20, .seq_k = 0, .head_dim = 0}),
            "attention: seq_k is zero");
  EXPECT_EQ(message({.batch = std::size_t{1} << 40, .heads = 1 << 10, .seq_q = 1 << 20}),
            "attention: q has more bytes than size_t counts");
  EXPECT_EQ(message({.heads = 6, .kv_heads = 4}), "attention: heads (6) is not a multiple of kv_heads (4)");
}

TEST(Validate, NamesABadScale) {
  expect_rejected([](ValidProblem& p) { p.problem.scale = std::nanf(""); }, "is not finite");
  expect_rejected([](ValidProblem& p) { p.problem.scale = std::numeric_limits<float>::infinity(); }, "is not finite");
  expect_rejected([](ValidProblem& p) { p.problem.scale = 0.0f; }, "scale 0.000000 is not positive");
  expect_rejected([](ValidProblem& p) { p.problem.scale = -1.0f; }, "scale -1.000000 is not positive");
}

TEST(Validate, NamesAnUnknownCausalAlignment) {
  expect_rejected([](ValidProblem& p) { p.problem.causal = static_cast<CausalAlignment>(7); },
                  "causal alignment 7 is not one of the enum's");
}

TEST(Validate, NamesAnOutputThatOverlapsAnInput) {
  expect_rejected(
      [](ValidProblem& p) {
        p.problem.shape.value_dim = p.problem.shape.head_dim;
        p.v.resize(p.problem.shape.v_elements());
        p.problem.v = p.v;
        p.problem.out = std::span<float>(p.q).first(p.problem.shape.out_elements());
      },
      "out overlaps q");
  expect_rejected(
      [](ValidProblem& p) {
        p.k.resize(p.k.size() + p.out.size());
        p.problem.k = std::span<const float>(p.k).first(p.problem.shape.k_elements());
        p.problem.out = std::span<float>(p.k).last(p.out.size());
        // Adjacent but not overlapping is fine:
        EXPECT_NO_THROW(validate(p.problem));
        p.problem.out = std::span<float>(p.k).subspan(1, p.out.size());
      },
      "out overlaps k");
  expect_rejected(
      [](ValidProblem& p) {
        p.v.resize(p.v.size() + p.out.size());
        p.problem.v = std::span<const float>(p.v).first(p.problem.shape.v_elements());
        p.problem.out = std::span<float>(p.v).last(p.out.size() + 1).first(p.out.size());
      },
      "out overlaps v");
  expect_rejected(
      [](ValidProblem& p) {
        p.mask.resize(p.out.size());
        p.problem.mask = std::span<const float>(p.mask).first(p.problem.shape.mask_elements());
        p.problem.out = p.mask;
      },
      "out overlaps mask");
}

TEST(Validate, EveryImplementationThrowsBeforeWriting) {
  for (const Implementation& implementation : cpu_implementations()) {
    ValidProblem p;
    p.problem.shape.head_dim = 300;
    EXPECT_THROW(implementation.run(p.problem), std::invalid_argument) << implementation.name;
    for (float x : p.out) ASSERT_EQ(x, 7.0f) << implementation.name;
  }
}

// A bfloat16 problem is validated by the same rules; its sizes are counted in bfloat16 values, the
// mask's in floats, and an output over the bytes of a float mask overlaps it.
TEST(Validate, NamesTheFaultsOfABfloat16Problem) {
  const AttentionShape shape{2, 4, 2, 5, 6, 8, 3};
  std::vector<bfloat16> q(shape.q_elements()), k(shape.k_elements()), v(shape.v_elements()),
      out(shape.out_elements(), to_bfloat16(7.0f));
  std::vector<float> mask(shape.mask_elements());
  const Bf16AttentionProblem valid{shape, q, k, v, mask, CausalAlignment::top_left, std::nullopt, out};
  EXPECT_NO_THROW(validate(valid));
  const auto message = [](const Bf16AttentionProblem& problem) { return validation_message(problem); };
  Bf16AttentionProblem short_k = valid;
  short_k.k = short_k.k.first(5);
  EXPECT_NE(message(short_k).find("k holds 5 bfloat16 values, the shape needs 192"), std::string::npos)
      << message(short_k);
  Bf16AttentionProblem short_mask = valid;
  short_mask.mask = short_mask.mask.first(29);
  EXPECT_NE(message(short_mask).find("mask holds 29 floats, the shape needs 30"), std::string::npos)
      << message(short_mask);
  // 30 floats of mask are 120 bytes: 60 bfloat16 values of output fit inside them.
  std::vector<float> wide_mask(shape.out_elements());
  Bf16AttentionProblem over_mask = valid;
  over_mask.mask = std::span<const float>(wide_mask).first(shape.mask_elements());
  over_mask.out = std::span<bfloat16>(reinterpret_cast<bfloat16*>(wide_mask.data()), shape.out_elements());
  EXPECT_NE(message(over_mask).find("out overlaps mask"), std::string::npos) << message(over_mask);
  Bf16AttentionProblem bad_scale = valid;
  bad_scale.scale = -1.0f;
  EXPECT_NE(message(bad_scale).find("scale -1.000000 is not positive"), std::string::npos) << message(bad_scale);
}

TEST(Validate, EveryBfloat16ImplementationThrowsBeforeWriting) {
  const AttentionShape shape{2, 4, 2, 5, 6, 300, 3};
  std::vector<bfloat16> q(shape.q_elements()), k(shape.k_elements()), v(shape.v_elements()),
      out(shape.out_elements(), to_bfloat16(7.0f));
  for (const Bf16Implementation& implementation : cpu_bf16_implementations()) {
    EXPECT_THROW(implementation.run({shape, q, k, v, {}, CausalAlignment::none, std::nullopt, out}),
                 std::invalid_argument)
        << implementation.name;
    for (bfloat16 x : out) ASSERT_EQ(x, to_bfloat16(7.0f)) << implementation.name;
  }
}

TEST(CausalAlignmentText, RoundTrips) {
  for (CausalAlignment a : {CausalAlignment::none, CausalAlignment::top_left, CausalAlignment::bottom_right})
    EXPECT_EQ(parse_causal_alignment(to_string(a)), a);
  EXPECT_EQ(to_string(CausalAlignment::top_left), "top-left");
  EXPECT_EQ(to_string(CausalAlignment::bottom_right), "bottom-right");
  EXPECT_EQ(parse_causal_alignment("top_left"), std::nullopt);
  EXPECT_EQ(parse_causal_alignment("None"), std::nullopt);
  EXPECT_EQ(parse_causal_alignment(""), std::nullopt);
}

TEST(EffectiveScale, DefaultsToInverseSquareRootOfHeadDim) {
  AttentionProblem problem;
  problem.shape.head_dim = 64;
  EXPECT_EQ(problem.effective_scale(), 0.125f);
  problem.shape.head_dim = 80;
  EXPECT_FLOAT_EQ(problem.effective_scale(), 1.0f / std::sqrt(80.0f));
  problem.scale = 3.0f;
  EXPECT_EQ(problem.effective_scale(), 3.0f);
}

}  // namespace
}  // namespace attention
