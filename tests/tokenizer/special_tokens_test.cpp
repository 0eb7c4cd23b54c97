// Special tokens: which texts become their ids under each SpecialTokenPolicy, what the text
// around them encodes to, the DisallowedSpecialToken and UnknownTokenId errors, and decoding.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "encoder_cases.hpp"
#include "random_text.hpp"
#include "test_data.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {
namespace {

constexpr Rank kEndOfText = 100257;    // cl100k_base's <|endoftext|>
constexpr Rank kFimPrefix = 100258;    // cl100k_base's <|fim_prefix|>
constexpr Rank kEndOfPrompt = 100276;  // cl100k_base's <|endofprompt|>

std::vector<Rank> concat(std::vector<Rank> a, const std::vector<Rank>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

SpecialTokenPolicy erroring(SpecialTokenPolicy policy) {
  policy.error_on_disallowed = true;
  return policy;
}

bool contains(std::string_view haystack, std::string_view needle) { return haystack.find(needle) != std::string_view::npos; }

// Expects `encode` to throw DisallowedSpecialToken for `token` at byte `offset`, named in what().
template <class Encode>
void expect_disallowed(Encode&& encode, const std::string& token, std::size_t offset) {
  try {
    encode();
    ADD_FAILURE() << "no DisallowedSpecialToken for " << token;
  } catch (const DisallowedSpecialToken& e) {
    EXPECT_EQ(e.text(), token);
    EXPECT_EQ(e.offset(), offset);
    EXPECT_TRUE(contains(e.what(), token)) << e.what();
    EXPECT_TRUE(contains(e.what(), "byte " + std::to_string(offset))) << e.what();
  }
}

// Expects decode to throw UnknownTokenId for ids[index], with the id and index in what().
void expect_unknown_id(const Tokenizer& tok, const std::vector<Rank>& ids, std::size_t index) {
  try {
    tok.decode(ids);
    ADD_FAILURE() << "no UnknownTokenId for id " << ids[index];
  } catch (const UnknownTokenId& e) {
    EXPECT_EQ(e.id(), ids[index]);
    EXPECT_EQ(e.index(), index);
    EXPECT_TRUE(contains(e.what(), "id " + std::to_string(ids[index]))) << e.what();
    EXPECT_TRUE(contains(e.what(), "position " + std::to_string(index))) << e.what();
  }
}

// Facts about cl100k_base's special tokens, through each encoder.
class Cl100kSpecials : public ::testing::TestWithParam<const Encoder*> {
 protected:
  std::vector<Rank> ordinary(std::string_view text) const { return tok_.encode_ordinary(text, encoder_); }
  std::vector<Rank> encode(std::string_view text, const SpecialTokenPolicy& policy) const {
    return tok_.encode(text, policy, encoder_);
  }

  const Tokenizer& tok_ = test::tokenizer("cl100k_base");
  const Encoder& encoder_ = *GetParam();
};

TEST_P(Cl100kSpecials, OrdinaryEncodingTreatsSpecialTextAsText) {
  // "<", "|", "endo", "ft", "ext", "|", ">", as tiktoken gives (data/golden, adv_mixed).
  const std::vector<Rank> expected = {27, 91, 8862, 728, 428, 91, 29};
  EXPECT_EQ(ordinary("<|endoftext|>"), expected);
  EXPECT_EQ(encode("<|endoftext|>", SpecialTokenPolicy::none()), expected);
}

TEST_P(Cl100kSpecials, AllowAllGivesSpecialIds) {
  EXPECT_EQ(encode("<|endoftext|>", SpecialTokenPolicy::all()), std::vector<Rank>{kEndOfText});
  EXPECT_EQ(encode("<|endofprompt|>", SpecialTokenPolicy::all()), std::vector<Rank>{kEndOfPrompt});
}

TEST_P(Cl100kSpecials, OnlyListedSpecialsBecomeIds) {
  const std::vector<Rank> ids = encode("<|fim_prefix|>x<|endoftext|>", SpecialTokenPolicy::only({"<|endoftext|>"}));
  EXPECT_EQ(ids, concat(ordinary("<|fim_prefix|>x"), {kEndOfText}));
  EXPECT_EQ(std::count(ids.begin(), ids.end(), kFimPrefix), 0);
}

TEST_P(Cl100kSpecials, SpecialsAtStartEndAndAdjacent) {
  const SpecialTokenPolicy all = SpecialTokenPolicy::all();
  EXPECT_EQ(encode("<|endoftext|><|endoftext|>", all), (std::vector<Rank>{kEndOfText, kEndOfText}));
  EXPECT_EQ(encode("<|endoftext|><|fim_prefix|>", all), (std::vector<Rank>{kEndOfText, kFimPrefix}));
  EXPECT_EQ(encode("<|endoftext|>hello world", all), concat({kEndOfText}, ordinary("hello world")));
  EXPECT_EQ(encode("hello world<|endoftext|>", all), concat(ordinary("hello world"), {kEndOfText}));
  EXPECT_EQ(encode(" <|endoftext|>\n", all), concat(concat(ordinary(" "), {kEndOfText}), ordinary("\n")));
}

TEST_P(Cl100kSpecials, IncompleteSpecialTextStaysText) {
  const SpecialTokenPolicy all = SpecialTokenPolicy::all();
  EXPECT_EQ(encode("<|endoftext|", all), ordinary("<|endoftext|"));
  EXPECT_EQ(encode("<|endoftext>", all), ordinary("<|endoftext>"));
  EXPECT_EQ(encode("<<|endoftext|>>", all), concat(concat(ordinary("<"), {kEndOfText}), ordinary(">")));
}

TEST_P(Cl100kSpecials, DisallowedSpecialThrowsWithTokenAndOffset) {
  const SpecialTokenPolicy policy = erroring(SpecialTokenPolicy::none());
  expect_disallowed([&] { encode("ab <|endoftext|>", policy); }, "<|endoftext|>", 3);
  expect_disallowed([&] { encode("<|fim_prefix|>", policy); }, "<|fim_prefix|>", 0);
  EXPECT_EQ(encode("ab <|endoftext", policy), ordinary("ab <|endoftext"));
}

TEST_P(Cl100kSpecials, AllowedSpecialDoesNotThrow) {
  const SpecialTokenPolicy policy = erroring(SpecialTokenPolicy::only({"<|endoftext|>"}));
  EXPECT_EQ(encode("ab <|endoftext|>", policy), concat(ordinary("ab "), {kEndOfText}));
  expect_disallowed([&] { encode("ab <|endoftext|> <|fim_prefix|>", policy); }, "<|fim_prefix|>", 17);
  EXPECT_EQ(encode("<|fim_prefix|><|endoftext|>", erroring(SpecialTokenPolicy::all())),
            (std::vector<Rank>{kFimPrefix, kEndOfText}));
}

// tiktoken raises for the first disallowed special token in the text, whatever the order of the
// vocabulary's specials.
TEST_P(Cl100kSpecials, DisallowedErrorNamesTheFirstInText) {
  const SpecialTokenPolicy policy = erroring(SpecialTokenPolicy::none());
  expect_disallowed([&] { encode("x<|fim_prefix|> <|endoftext|>", policy); }, "<|fim_prefix|>", 1);
}

TEST_P(Cl100kSpecials, DecodeSpecialIdGivesItsText) {
  EXPECT_EQ(tok_.decode(std::vector<Rank>{kEndOfText}), "<|endoftext|>");
  EXPECT_EQ(tok_.decode(std::vector<Rank>{kEndOfPrompt}), "<|endofprompt|>");
  EXPECT_EQ(tok_.decode(encode("hi<|fim_prefix|>there", SpecialTokenPolicy::all())), "hi<|fim_prefix|>there");
}

TEST_P(Cl100kSpecials, UnknownIdsThrowWithIdAndPosition) {
  const Rank hello = ordinary("hello")[0];
  expect_unknown_id(tok_, {hello, 100256}, 1);  // the gap before the specials
  expect_unknown_id(tok_, {100261}, 0);         // the gap between <|fim_suffix|> and <|endofprompt|>
  expect_unknown_id(tok_, {hello, hello, tok_.vocabulary().id_end()}, 2);
  expect_unknown_id(tok_, {kNoRank}, 0);
  EXPECT_EQ(tok_.vocabulary().id_end(), kEndOfPrompt + 1);
}

INSTANTIATE_TEST_SUITE_P(Encoders, Cl100kSpecials, ::testing::ValuesIn(supported_encoders()), test::encoder_name);

// Facts that hold for every built-in encoding.
class SpecialTokens : public ::testing::TestWithParam<test::EncodingAndEncoder> {
 protected:
  const Tokenizer& tok_ = test::tokenizer(GetParam().encoding);
  const Encoder& encoder_ = *GetParam().encoder;
};

TEST_P(SpecialTokens, EachSpecialEncodesToItsIdAndBack) {
  ASSERT_FALSE(tok_.vocabulary().special_tokens().empty());
  for (const SpecialToken& special : tok_.vocabulary().special_tokens()) {
    SCOPED_TRACE(special.text);
    EXPECT_FALSE(tok_.vocabulary().ranks().contains(special.rank));
    EXPECT_EQ(tok_.encode(special.text, SpecialTokenPolicy::all(), encoder_), std::vector<Rank>{special.rank});
    EXPECT_EQ(tok_.encode(special.text, SpecialTokenPolicy::only({special.text}), encoder_),
              std::vector<Rank>{special.rank});
    const std::vector<Rank> ordinary = tok_.encode_ordinary(special.text, encoder_);
    EXPECT_GT(ordinary.size(), 1u);
    EXPECT_EQ(std::count(ordinary.begin(), ordinary.end(), special.rank), 0);
    EXPECT_EQ(tok_.decode(std::vector<Rank>{special.rank}), special.text);
  }
}

// Text between allowed special tokens encodes as each segment's ordinary encoding: no BPE merge
// or pre-tokenizer piece crosses a special token.
TEST_P(SpecialTokens, TextAroundSpecialsIsOrdinaryPerSegment) {
  static constexpr test::TextKind kShortKinds[] = {test::TextKind::bytes, test::TextKind::unicode,
                                                  test::TextKind::ascii_mix};
  const std::vector<SpecialToken>& specials = tok_.vocabulary().special_tokens();
  test::RandomText random(0x5E6E47);
  for (int n = 0; n < 300 && !HasFailure(); ++n) {
    std::string text;
    std::vector<Rank> expected;
    for (std::size_t parts = random.between(1, 4); parts > 0; --parts) {
      const std::string segment = random.text(random.pick(kShortKinds));
      const SpecialToken& special = random.pick(specials);
      text += segment + special.text;
      expected = concat(concat(std::move(expected), tok_.encode_ordinary(segment, encoder_)), {special.rank});
    }
    const std::string tail = random.text(random.pick(kShortKinds));
    text += tail;
    expected = concat(std::move(expected), tok_.encode_ordinary(tail, encoder_));
    SCOPED_TRACE("input " + test::escaped(text));
    test::expect_same_ids(expected, tok_.encode(text, SpecialTokenPolicy::all(), encoder_));
  }
}

TEST_P(SpecialTokens, IdsPastTheEndAndInGapsAreUnknown) {
  const Vocabulary& vocabulary = tok_.vocabulary();
  expect_unknown_id(tok_, {0, vocabulary.id_end()}, 1);
  expect_unknown_id(tok_, {vocabulary.id_end() + 1000}, 0);
  // Every id below id_end() is an ordinary or a special token, or decoding it throws.
  for (Rank id = 0; id < vocabulary.id_end(); ++id) {
    if (vocabulary.ranks().contains(id) || vocabulary.find_special(vocabulary.token_bytes(id))) continue;
    expect_unknown_id(tok_, {id}, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Builtin, SpecialTokens, ::testing::ValuesIn(test::every_encoding_and_encoder()),
                         test::encoding_and_encoder_name);

}  // namespace
}  // namespace tokenizer
