#include "bench_inputs.hpp"

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace benches {

namespace {

constexpr std::size_t kDocumentBytes = 4096;

std::string read_corpus(const std::string& name) {
  const auto path = tokenizer::Vocabulary::data_dir() / "corpus" / name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open benchmark input " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

// The longest run of whole lines of `text` that starts at `begin` (a line start) and has at
// most kDocumentBytes bytes.
std::string_view whole_lines(std::string_view text, std::size_t begin) {
  const std::size_t last_newline = text.rfind('\n', begin + kDocumentBytes - 1);
  if (last_newline == std::string_view::npos || last_newline < begin) {
    throw std::runtime_error("benchmark input has a line longer than " + std::to_string(kDocumentBytes) +
                             " bytes at offset " + std::to_string(begin));
  }
  return text.substr(begin, last_newline + 1 - begin);
}

// The first line start at or after `offset`.
std::size_t line_start_from(std::string_view text, std::size_t offset) {
  if (offset == 0) return 0;
  const std::size_t newline = text.find('\n', offset - 1);
  if (newline == std::string_view::npos) throw std::runtime_error("benchmark input has no line after the offset");
  return newline + 1;
}

}  // namespace

std::string_view short_text() {
  static constexpr std::string_view text = "The quick brown fox doesn't jump over 12 lazy dogs, it naps.";
  static_assert(text.size() == 60);
  return text;
}

std::string_view medium_text() {
  return batch_documents().front();
}

std::string_view long_text() {
  static const std::string text = read_corpus("en_shakespeare.txt");
  return text;
}

std::string_view multilingual_text() {
  static const std::string text = [] {
    std::string all;
    for (const char* name : {"udhr_arb.txt", "udhr_cmn_hans.txt", "udhr_eng.txt", "udhr_hin.txt", "udhr_jpn.txt",
                             "udhr_rus.txt"}) {
      all += read_corpus(name);
    }
    return all;
  }();
  return text;
}

std::string_view adversarial_letters() {
  static const std::string text(kAdversarialBytes, 'a');
  return text;
}

std::string_view adversarial_digits() {
  static const std::string text(kAdversarialBytes, '7');
  return text;
}

std::string_view adversarial_spaces() {
  static const std::string text(kAdversarialBytes, ' ');
  return text;
}

std::string_view adversarial_base64() {
  static const std::string text = [] {
    static constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static_assert(alphabet.size() == 64);
    // The engine's output sequence is fixed by the standard; a distribution's is not, hence
    // the plain shift.
    std::mt19937 gen(1);
    std::string s(kAdversarialBytes, '\0');
    for (char& c : s) c = alphabet[gen() >> 26];
    return s;
  }();
  return text;
}

std::span<const EncodingInput> encoding_inputs() {
  static const EncodingInput inputs[] = {
      {"short_encoding", short_text, "cl100k_base"},
      {"medium_encoding", medium_text, "cl100k_base"},
      {"long_encoding", long_text, "cl100k_base"},
      {"short_encoding_o200k", short_text, "o200k_base"},
      {"medium_encoding_o200k", medium_text, "o200k_base"},
      {"long_encoding_o200k", long_text, "o200k_base"},
      {"multilingual_encoding", multilingual_text, "cl100k_base"},
      {"adversarial_encoding/letters", adversarial_letters, "cl100k_base"},
      {"adversarial_encoding/digits", adversarial_digits, "cl100k_base"},
      {"adversarial_encoding/spaces", adversarial_spaces, "cl100k_base"},
      {"adversarial_encoding/base64", adversarial_base64, "cl100k_base"},
  };
  return inputs;
}

std::vector<std::string_view> line_parts(std::string_view text, std::size_t count) {
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  for (std::size_t i = 1; i <= count; ++i) {
    const std::size_t end = i == count ? text.size() : line_start_from(text, i * (text.size() / count));
    parts.push_back(text.substr(begin, end - begin));
    begin = end;
  }
  return parts;
}

std::span<const std::string_view> batch_documents() {
  static const std::vector<std::string_view> documents = [] {
    const std::string_view corpus = long_text();
    const std::size_t stride = corpus.size() / kBatchDocuments;
    std::vector<std::string_view> all;
    all.reserve(kBatchDocuments);
    for (std::size_t i = 0; i < kBatchDocuments; ++i) all.push_back(whole_lines(corpus, line_start_from(corpus, i * stride)));
    return all;
  }();
  return documents;
}

const tokenizer::Tokenizer& tokenizer_for(const std::string& encoding) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<tokenizer::Tokenizer>> cache;
  const std::lock_guard lock(mutex);
  auto& slot = cache[encoding];
  if (!slot) slot = std::make_unique<tokenizer::Tokenizer>(tokenizer::Vocabulary::builtin(encoding));
  return *slot;
}

}  // namespace benches
