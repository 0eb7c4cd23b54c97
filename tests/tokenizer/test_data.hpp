#pragma once

// Access to the data the tests share: corpus texts, tiktoken's golden ids, loaded tokenizers.

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.hpp"

namespace tokenizer::test {

inline std::filesystem::path corpus_dir() { return TOKBENCH_CORPUS_DIR; }
inline std::filesystem::path golden_dir() { return TOKBENCH_GOLDEN_DIR; }

inline std::string read_binary(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

inline std::vector<std::string> corpus_names() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(corpus_dir()))
    if (entry.path().extension() == ".txt") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

inline std::string read_corpus(const std::string& name) { return read_binary(corpus_dir() / (name + ".txt")); }

inline std::vector<Rank> read_golden(const std::string& file) {
  const std::string bytes = read_binary(golden_dir() / file);
  std::vector<Rank> ids(bytes.size() / 4);
  std::memcpy(ids.data(), bytes.data(), ids.size() * 4);  // little-endian host, as the files
  return ids;
}

// One loaded tokenizer per built-in encoding, shared by all tests of the process.
inline const Tokenizer& tokenizer(const std::string& encoding) {
  static std::map<std::string, std::unique_ptr<Tokenizer>> cache;
  auto& slot = cache[encoding];
  if (!slot) slot = std::make_unique<Tokenizer>(Vocabulary::builtin(encoding));
  return *slot;
}

// Compares id sequences and, on a difference, reports where the first one is rather than
// dumping both sequences.
inline void expect_same_ids(const std::vector<Rank>& expected, const std::vector<Rank>& actual) {
  const std::size_t common = std::min(expected.size(), actual.size());
  std::size_t i = 0;
  while (i < common && expected[i] == actual[i]) ++i;
  if (i == expected.size() && i == actual.size()) return;
  auto window = [&](const std::vector<Rank>& v) {
    std::string s;
    for (std::size_t k = i >= 3 ? i - 3 : 0; k < std::min(v.size(), i + 4); ++k) {
      if (k == i) s += '[';
      s += std::to_string(v[k]);
      s += k == i ? "] " : " ";
    }
    return s;
  };
  ADD_FAILURE() << "ids differ first at index " << i << " (expected " << expected.size() << " ids, got "
                << actual.size() << ")\n  expected: ... " << window(expected) << "\n  actual:   ... " << window(actual);
}

}  // namespace tokenizer::test
