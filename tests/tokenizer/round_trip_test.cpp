// decode(encode(b)) == b for every byte string b, through every supported encoder in every
// built-in encoding: ill-formed UTF-8 of every kind, valid text, empty input, with special
// tokens allowed or not.
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

// Every shape of ill-formed UTF-8, alone and between text.
const std::vector<std::string>& ill_formed_texts() {
  static const std::vector<std::string> texts = [] {
    const std::vector<std::string> faults = {
        "\xC3", "\xE2\x82", "\xF0\x9F\x98",                                  // truncated sequences
        "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xF0\x80\x80\x80", "\xF0\x8F\xBF\xBF",  // overlong
        "\xED\xA0\x80", "\xED\xBF\xBF", "\xED\xA0\xBD\xED\xB8\x80",          // surrogates, a CESU-8 pair
        "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xF8\x88\x80\x80\x80", "\xFC\x84\x80\x80\x80\x80",  // past U+10FFFF
        "\xFE", "\xFF", "\xFE\xFF", "\xFF\xFE",                               // bytes never in UTF-8
        "\x80", "\xBF", "\x80\x80\x80\x80", "\xC3\xA9\xA9",                   // lone continuation bytes
        std::string("\0", 1), std::string("a\0b", 3),                         // NUL is valid, and a byte like others
    };
    const std::vector<std::string> contexts = {"", "a", " ", "'", "1", "\n", "日", "😀", "  "};
    std::vector<std::string> out;
    for (const std::string& fault : faults) {
      for (const std::string& before : contexts)
        for (const std::string& after : contexts) out.push_back(before + fault + after);
      out.push_back(fault + fault + fault);
      out.push_back("'" + fault + "s");
      out.push_back("hello" + fault + "world " + fault + "\r\n" + fault);
    }
    return out;
  }();
  return texts;
}

// Reports where `actual` first departs from `expected`, with a little context, rather than both
// strings whole (they run to 20 KiB). Returns whether they are equal.
bool expect_same_bytes(std::string_view expected, std::string_view actual, std::string_view what) {
  if (expected == actual) return true;
  std::size_t i = 0;
  while (i < expected.size() && i < actual.size() && expected[i] == actual[i]) ++i;
  const std::size_t from = i >= 20 ? i - 20 : 0;
  ADD_FAILURE() << what << ": first difference at byte " << i << " (expected " << expected.size() << " bytes, got "
                << actual.size() << ")\n  expected from byte " << from << ": " << test::escaped(expected.substr(from, 60))
                << "\n  actual from byte " << from << ":   " << test::escaped(actual.substr(from, 60));
  return false;
}

class RoundTrip : public ::testing::TestWithParam<test::EncodingAndEncoder> {
 protected:
  const Tokenizer& tok_ = test::tokenizer(GetParam().encoding);
  const Encoder& encoder_ = *GetParam().encoder;

  // Encodes `text` as ordinary text and with every special token allowed, checks that both
  // decode back to `text` and that ordinary encoding gives ordinary ranks only. Returns whether
  // all held, so that loops can stop after a few failures.
  bool expect_round_trip(const std::string& text) {
    SCOPED_TRACE("input " + test::escaped_start(text));
    const std::vector<Rank> ordinary = tok_.encode_ordinary(text, encoder_);
    for (const Rank id : ordinary) {
      if (tok_.vocabulary().ranks().contains(id)) continue;
      ADD_FAILURE() << "encode_ordinary gave " << id << ", which is no ordinary token";
      return false;
    }
    const bool ordinary_ok = expect_same_bytes(text, tok_.decode(ordinary), "decode(encode_ordinary(text))");
    const std::vector<Rank> with_specials = tok_.encode(text, SpecialTokenPolicy::all(), encoder_);
    return expect_same_bytes(text, tok_.decode(with_specials), "decode(encode(text, all))") && ordinary_ok;
  }

  void expect_round_trips(const std::vector<std::string>& texts) {
    constexpr int kReportedFailures = 5;
    int failures = 0;
    for (std::size_t i = 0; i < texts.size() && failures < kReportedFailures; ++i) {
      SCOPED_TRACE("text #" + std::to_string(i));
      if (!expect_round_trip(texts[i])) ++failures;
    }
  }
};

TEST_P(RoundTrip, RandomTexts) {
  for (const test::TextKind kind : test::kAllTextKinds) {
    SCOPED_TRACE(test::text_kind_name(kind));
    expect_round_trips(test::shared_random_texts(kind));
  }
}

TEST_P(RoundTrip, IllFormedUtf8) { expect_round_trips(ill_formed_texts()); }

TEST_P(RoundTrip, ValidText) {
  std::vector<std::string> texts = {"Hello, world!", "naïve café ſ ǅ", "日本語のテキスト", "😀👍🏽👨‍👩‍👧‍👦",
                                    "  \n\n  \t", "Ⅻ ½ ² ١٢٣ १२३ １２３", "it's 'RE 'ſ", "\xEF\xBF\xBD"};
  for (const std::string& name : test::corpus_names()) texts.push_back(test::read_corpus(name).substr(0, 4096));
  expect_round_trips(texts);
}

TEST_P(RoundTrip, EmptyInput) {
  EXPECT_TRUE(tok_.encode_ordinary("", encoder_).empty());
  EXPECT_TRUE(tok_.encode("", SpecialTokenPolicy::all(), encoder_).empty());
  EXPECT_TRUE(tok_.encode("", SpecialTokenPolicy::none(), encoder_).empty());
  EXPECT_EQ(tok_.decode({}), "");
}

// Special-token texts laid between random texts come back as their ids, once each, and the
// whole decodes back to the input.
TEST_P(RoundTrip, SpecialTokensBetweenRandomTexts) {
  const std::vector<SpecialToken>& specials = tok_.vocabulary().special_tokens();
  ASSERT_FALSE(specials.empty());
  static constexpr test::TextKind kShortKinds[] = {test::TextKind::bytes, test::TextKind::unicode,
                                                  test::TextKind::ascii_mix};
  test::RandomText random(0x5EC1A1);
  for (int n = 0; n < 300; ++n) {
    std::string text;
    std::vector<Rank> inserted;
    for (std::size_t parts = random.between(1, 4); parts > 0; --parts) {
      text += random.text(random.pick(kShortKinds));
      const SpecialToken& special = random.pick(specials);
      text += special.text;
      inserted.push_back(special.rank);
    }
    SCOPED_TRACE("input " + test::escaped(text));
    const std::vector<Rank> ids = tok_.encode(text, SpecialTokenPolicy::all(), encoder_);
    std::vector<Rank> specials_found;
    for (const Rank id : ids)
      if (!tok_.vocabulary().ranks().contains(id)) specials_found.push_back(id);
    EXPECT_EQ(specials_found, inserted);
    expect_same_bytes(text, tok_.decode(ids), "decode(encode(text, all))");
    if (HasFailure()) break;
  }
}

INSTANTIATE_TEST_SUITE_P(Builtin, RoundTrip, ::testing::ValuesIn(test::every_encoding_and_encoder()),
                         test::encoding_and_encoder_name);

}  // namespace
}  // namespace tokenizer
