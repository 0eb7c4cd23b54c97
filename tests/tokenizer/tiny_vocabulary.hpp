#pragma once

// Small vocabulary files written at run time: a valid one to load, and the means to corrupt it
// one fault at a time.

#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/rank.hpp"

namespace tokenizer::test {

// A fresh directory under the system's temporary directory, removed with its contents when the
// object goes.
class ScratchDir {
 public:
  ScratchDir() {
    std::string name = (std::filesystem::temp_directory_path() / "tokenizer-test-XXXXXX").string();
    if (!mkdtemp(name.data())) throw std::runtime_error("cannot create a directory from " + name);
    path_ = name;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `content` byte for byte to `name` in the directory and returns the file's path.
  std::filesystem::path write(const std::string& name, std::string_view content) const {
    const std::filesystem::path file = path_ / name;
    std::ofstream out(file, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) throw std::runtime_error("cannot write " + file.string());
    return file;
  }

 private:
  std::filesystem::path path_;
};

// Standard base64 with '=' padding, as .tiktoken files hold tokens.
inline std::string base64(std::string_view bytes) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 3; ++k)
      group = group << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kAlphabet[group >> (18 - 6 * k) & 0x3F] : '=';
  }
  return out;
}

// A valid vocabulary small enough to encode by hand: every byte b is rank b, and six merges
// follow. Under the pattern \S+|\s+ it encodes "abcd abc bcd aaa  x" as
//   abcd | ' ' | ab c | ' ' | b cd | ' ' | aa a | '  ' | x
// (in "abc" ab (256) beats bc (260); in "bcd" cd (257) beats bc; in "aaa" the leftmost aa wins).
struct TinyVocabulary {
  struct Merge {
    std::string_view token;
    Rank rank;
  };
  static constexpr Merge kMerges[] = {{"ab", 256}, {"cd", 257}, {"abcd", 258}, {"  ", 259}, {"bc", 260}, {"aa", 261}};
  static constexpr Rank kRankEnd = 262;
  static constexpr Rank kEnd = 300;  // <|end|>
  static constexpr Rank kPad = 301;  // <|pad|>

  // The lines of the .tiktoken file, without line ends; the line of rank r is number r + 1.
  static std::vector<std::string> rank_lines() {
    std::vector<std::string> lines;
    for (unsigned b = 0; b < 256; ++b) lines.push_back(base64(std::string(1, static_cast<char>(b))) + " " + std::to_string(b));
    for (const Merge& m : kMerges) lines.push_back(base64(m.token) + " " + std::to_string(m.rank));
    return lines;
  }

  static std::string join(const std::vector<std::string>& lines, std::string_view line_end = "\n") {
    std::string out;
    for (const std::string& line : lines) out += line + std::string(line_end);
    return out;
  }

  // The .json spec, one key per line: name on line 2, pat_str on 3, special_tokens on 4.
  static std::string spec(std::string_view special_tokens = R"({"<|end|>": 300, "<|pad|>": 301})") {
    return "{\n"
           "  \"name\": \"tiny\",\n"
           "  \"pat_str\": \"\\\\S+|\\\\s+\",\n"
           "  \"special_tokens\": " + std::string(special_tokens) + "\n"
           "}\n";
  }
};

}  // namespace tokenizer::test
