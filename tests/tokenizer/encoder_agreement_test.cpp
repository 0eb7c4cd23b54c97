// Every encoder gives the serial encoder's ids on inputs large enough for the parallel
// encoders to cut into chunks (the conformance and oracle tests pin serial to tiktoken), and
// encode_batch gives each document's own encoding.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "random_text.hpp"
#include "test_data.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {
namespace {

struct LargeInput {
  std::string name;
  std::string text;
};

std::string repeated(std::string_view unit, std::size_t bytes) {
  std::string out;
  while (out.size() < bytes) out += unit;
  return out;
}

// Random base64 without padding or line breaks, as the adversarial benchmark uses.
std::string base64_text(std::size_t bytes) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::mt19937 gen(1);
  std::string out(bytes, ' ');
  for (char& c : out) c = kAlphabet[gen() >> 26];
  return out;
}

// Inputs over the parallel threshold. The single-character megabytes are one piece each, longer
// than any chunk, so every chunk but the first is dropped and the text is encoded serially;
// pieces of 5,000 and 70,000 bytes between words drop the chunks that start inside them
// (pieces of 4 KiB or more count as giant) and keep the others; the random concatenations put
// every kind of piece across chunk starts.
std::vector<LargeInput> large_inputs() {
  std::vector<LargeInput> inputs = {
      {"letters", std::string(1 << 20, 'a')},
      {"digits", std::string(1 << 20, '7')},
      {"spaces", std::string(1 << 20, ' ')},
      {"newlines", repeated("\n\n \r\n", 1 << 19)},
      {"words_and_giant_pieces", repeated("Some words, then " + std::string(70000, 'x') + " and more.\n", 1 << 20)},
      {"words_and_5k_pieces", repeated("Some words, then " + std::string(5000, 'x') + " and more.\n", 1 << 20)},
      {"base64", base64_text(1 << 20)},
  };
  test::RandomText random(2024);
  for (const test::TextKind kind : test::kAllTextKinds) {
    std::string text;
    while (text.size() < 400 * 1024) text += random.text(kind);
    inputs.push_back({"random_" + test::text_kind_name(kind), std::move(text)});
  }
  std::string corpus_mix;
  for (const std::string& name : test::corpus_names()) corpus_mix += test::read_corpus(name);
  inputs.push_back({"all_corpora", std::move(corpus_mix)});
  return inputs;
}

const std::vector<LargeInput>& cached_inputs() {
  static const std::vector<LargeInput> inputs = large_inputs();
  return inputs;
}

// The serial encoder's ids for every large input, computed once per encoding.
const std::vector<std::vector<Rank>>& serial_ids(const std::string& encoding) {
  static std::map<std::string, std::vector<std::vector<Rank>>> cache;
  auto& ids = cache[encoding];
  if (ids.empty())
    for (const LargeInput& input : cached_inputs())
      ids.push_back(test::tokenizer(encoding).encode_ordinary(input.text, *find_encoder("serial")));
  return ids;
}

// simd's ids on a long text, which it encodes through a table of the whole pieces it found (a
// text of 64 KiB or more), are those of its pieces encoded one at a time by serial, each a text
// too short for such a table, by a Tokenizer without a piece cache: nothing remembered between
// pieces.
TEST(LongTextPaths, SimdIdsAreThoseOfItsPiecesEncodedAlone) {
  const Encoder* simd = find_encoder("simd");
  if (!simd || !simd->is_supported()) GTEST_SKIP() << "no simd encoder on this CPU";
  const Encoder& serial = *find_encoder("serial");
  for (const std::string& encoding : Vocabulary::builtin_names()) {
    SCOPED_TRACE(encoding);
    const Tokenizer uncached(test::tokenizer(encoding), {.piece_cache_bytes = 0});
    for (const LargeInput& input : cached_inputs()) {
      if (input.name.rfind("random_", 0) != 0 && input.name != "all_corpora" && input.name != "base64") continue;
      SCOPED_TRACE(input.name);
      // 256 KiB of each: four times what makes the table, and a test that the sanitized build
      // runs in seconds.
      const std::string_view text = std::string_view(input.text).substr(0, 256 * 1024);
      std::vector<Rank> alone;
      uncached.pretokenizer().for_each_piece(text, [&](std::string_view piece) {
        const std::vector<Rank> ids = uncached.encode_ordinary(piece, serial);
        alone.insert(alone.end(), ids.begin(), ids.end());
      });
      test::expect_same_ids(alone, test::tokenizer(encoding).encode_ordinary(text, *simd));
    }
  }
}

std::vector<const Encoder*> encoders_but_serial() {
  std::vector<const Encoder*> out;
  for (const Encoder* e : supported_encoders())
    if (e->name != "serial") out.push_back(e);
  return out;
}

class EncoderAgreement : public ::testing::TestWithParam<std::tuple<std::string, const Encoder*>> {};

TEST_P(EncoderAgreement, LargeInputsMatchSerial) {
  const auto& [encoding, encoder] = GetParam();
  const Tokenizer& tok = test::tokenizer(encoding);
  for (std::size_t i = 0; i < cached_inputs().size(); ++i) {
    SCOPED_TRACE(cached_inputs()[i].name);
    test::expect_same_ids(serial_ids(encoding)[i], tok.encode_ordinary(cached_inputs()[i].text, *encoder));
  }
}

INSTANTIATE_TEST_SUITE_P(AllEncoders, EncoderAgreement,
                         ::testing::Combine(::testing::ValuesIn(Vocabulary::builtin_names()),
                                            ::testing::ValuesIn(encoders_but_serial())),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::string(std::get<1>(info.param)->name);
                         });

TEST(EncodeBatch, EachDocumentAsAlone) {
  const Tokenizer& tok = test::tokenizer("cl100k_base");
  std::vector<std::string> documents;
  test::RandomText random(7);
  for (int i = 0; i < 200; ++i) documents.push_back(random.text(test::kAllTextKinds[i % std::size(test::kAllTextKinds)]));
  documents.push_back("");
  documents.push_back(test::read_corpus("en_shakespeare"));
  const std::vector<std::string_view> views(documents.begin(), documents.end());
  for (const Encoder* encoder : supported_encoders()) {
    SCOPED_TRACE(encoder->name);
    const std::vector<std::vector<Rank>> batch = tok.encode_batch(views, *encoder);
    ASSERT_EQ(batch.size(), documents.size());
    for (std::size_t i = 0; i < documents.size(); ++i) {
      SCOPED_TRACE("document " + std::to_string(i));
      test::expect_same_ids(tok.encode_ordinary(documents[i], *find_encoder("serial")), batch[i]);
    }
  }
}

}  // namespace
}  // namespace tokenizer
