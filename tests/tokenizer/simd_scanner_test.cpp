// Every SIMD piece scanner this CPU runs (not only the one dispatch picks) gives exactly the
// scalar scanner's pieces, whatever the batch size.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "random_text.hpp"
#include "simd/piece_batch_scanner.hpp"
#include "test_data.hpp"
#include "tokenizer/pretokenizer.hpp"

namespace tokenizer {
namespace {

struct ScannerCase {
  const simd::PieceBatchScanners* scanners;
  PatternKind kind;
  std::string_view pattern;

  friend void PrintTo(const ScannerCase& c, std::ostream* os) { *os << isa::name(c.scanners->isa) << "/" << c.pattern; }
};

std::vector<ScannerCase> supported_cases() {
  std::vector<ScannerCase> cases;
  for (const simd::PieceBatchScanners& s : simd::all_piece_batch_scanners()) {
    if (!isa::cpu_supports(s.isa)) continue;
    cases.push_back({&s, PatternKind::r50k, kR50kPattern});
    cases.push_back({&s, PatternKind::cl100k, kCl100kPattern});
    cases.push_back({&s, PatternKind::o200k, kO200kPattern});
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<ScannerCase>& info) {
  static constexpr const char* kKinds[] = {"r50k", "cl100k", "o200k"};
  return std::string(isa::name(info.param.scanners->isa)) + "_" + kKinds[static_cast<int>(info.param.kind)];
}

// Texts long enough to be read in 64-byte windows: the shared random texts joined in groups (so
// every kind of piece meets window edges at every offset), the corpus, and runs of each ASCII
// class, and of characters of two to four bytes, whose lengths straddle the window size; "a1"
// starts a piece at every byte, as many starts as a window can decide, and "क्" (a letter and a
// mark) a piece at every character, so that a window read by characters splits its characters
// at every offset of the window's end.
std::vector<std::string> long_texts() {
  std::vector<std::string> texts;
  for (const test::TextKind kind : test::kAllTextKinds) {
    const std::vector<std::string>& shorts = test::shared_random_texts(kind);
    for (std::size_t i = 0; i < shorts.size(); i += 25) {
      std::string joined;
      for (std::size_t j = i; j < std::min(i + 25, shorts.size()); ++j) joined += shorts[j];
      texts.push_back(std::move(joined));
    }
  }
  for (const std::string& name : test::corpus_names()) texts.push_back(test::read_corpus(name));
  const std::string units[] = {
      "a", "Z", "7", " ", "\n", "\r\n", "!", "/", "\t", "aB", "Ab", "a1", "\xC3\xA9",
      "\xC2\x85",                  // U+0085, White_Space
      "\xE0\xA4\x95\xE0\xA5\x8D",  // क्
      "\xE6\x97\xA5",              // 日
      "\xF0\x9F\x98\x80",          // 😀
      "\xE2\x80\x99s",             // ’s
      "\n ",                        // whitespace with newlines, ending in a space
  };
  for (const std::string& unit : units) {
    for (std::size_t n : {1, 2, 3, 4, 62, 63, 64, 65, 66, 127, 128, 129}) {
      std::string text;
      for (const std::string_view around : {"x ", " ", "1", "!\n", "A", "\xE2\x80\x83"}) {
        text += around;
        for (std::size_t k = 0; k < n; ++k) text += unit;
      }
      texts.push_back(text + text + text);  // also at other offsets from the window start
    }
  }
  return texts;
}

const std::vector<std::string>& cached_long_texts() {
  static const std::vector<std::string> texts = long_texts();
  return texts;
}

// The chain of piece ends from 0, collected in batches of `batch`.
std::vector<std::size_t> batch_chain(simd::ScanPiecesFn scan, std::string_view text, std::size_t batch) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
  std::vector<std::size_t> ends, buffer(batch);
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t n = scan(data, text.size(), pos, buffer.data(), batch);
    if (n == 0 || n > batch) {
      ADD_FAILURE() << "scan returned " << n << " pieces for a batch of " << batch;
      break;
    }
    ends.insert(ends.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n));
    pos = ends.back();
  }
  return ends;
}

class SimdScanner : public ::testing::TestWithParam<ScannerCase> {};

TEST_P(SimdScanner, MatchesScalarScanner) {
  const ScannerCase& c = GetParam();
  const PreTokenizer scalar{c.pattern};
  ASSERT_EQ(scalar.kind(), c.kind);
  const simd::ScanPiecesFn scan = c.scanners->for_kind(c.kind);
  for (const std::string& text : cached_long_texts()) {
    std::vector<std::size_t> expected;
    scalar.for_each_piece(text, [&](std::string_view piece) { expected.push_back(piece.data() + piece.size() - text.data()); });
    for (const std::size_t batch : {1, 7, 16, 256}) {
      const std::vector<std::size_t> actual = batch_chain(scan, text, batch);
      if (actual == expected) continue;
      std::size_t i = 0;
      while (i < actual.size() && i < expected.size() && actual[i] == expected[i]) ++i;
      const std::size_t from = i == 0 ? 0 : expected[i - 1];
      FAIL() << "batch " << batch << ": piece " << i << " starting at byte " << from << " ends at "
             << (i < actual.size() ? std::to_string(actual[i]) : "none") << ", scalar says "
             << (i < expected.size() ? std::to_string(expected[i]) : "none") << "; text from there: "
             << test::escaped(std::string_view(text).substr(from, 80));
    }
  }
}

// A text shorter than a window, and a long text's last bytes, are read in one window padded past
// the text's end: every suffix of up to 63 bytes of the texts above (a suffix may start inside a
// character), and each shared random text on its own.
TEST_P(SimdScanner, MatchesScalarScannerOnShortTexts) {
  const ScannerCase& c = GetParam();
  const PreTokenizer scalar{c.pattern};
  const simd::ScanPiecesFn scan = c.scanners->for_kind(c.kind);
  std::vector<std::string> texts;
  for (const std::string& text : cached_long_texts()) {
    if (text.size() > 100'000) continue;  // the corpora: their suffixes are the same kind of text
    for (std::size_t n = 1; n < simd::kWindowBytes && n <= text.size(); ++n) texts.push_back(text.substr(text.size() - n));
  }
  for (const test::TextKind kind : test::kAllTextKinds)
    for (const std::string& text : test::shared_random_texts(kind))
      if (!text.empty()) texts.push_back(text);
  for (const std::string& text : texts) {
    std::vector<std::size_t> expected;
    scalar.for_each_piece(text, [&](std::string_view piece) { expected.push_back(piece.data() + piece.size() - text.data()); });
    for (const std::size_t batch : {1, 3, 256})
      ASSERT_EQ(batch_chain(scan, text, batch), expected) << "batch " << batch << ", text " << test::escaped(text);
  }
}

INSTANTIATE_TEST_SUITE_P(SupportedIsas, SimdScanner, ::testing::ValuesIn(supported_cases()), case_name);

TEST(SimdScanners, BaselineIsAlwaysSupported) {
  const auto all = simd::all_piece_batch_scanners();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.back().isa, isa::Isa::sse2);
  EXPECT_TRUE(isa::is_usable(simd::best_piece_batch_scanners().isa));
  EXPECT_EQ(simd::best_piece_batch_scanners().for_kind(PatternKind::regex), nullptr);
}

}  // namespace
}  // namespace tokenizer
