#include "tokenizer/vocabulary.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "base64.hpp"
#include "spec_file.hpp"

namespace tokenizer {

namespace {

constexpr std::string_view kBuiltinNames[] = {"r50k_base", "cl100k_base", "o200k_base"};

std::string read_file(const std::filesystem::path& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) throw VocabularyError(path.string() + ": cannot open vocabulary file: " + std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, file.get())) text.append(buffer, n);
  if (std::ferror(file.get())) throw VocabularyError(path.string() + ": read error: " + std::strerror(errno));
  return text;
}

// Printable form of token bytes for error messages.
std::string printable(std::string_view bytes) {
  std::string out = "\"";
  for (const unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
  }
  return out + "\"";
}

// Parses `.tiktoken` text: one `base64(token) SPACE rank` per line, ranks strictly increasing.
RankTable parse_ranks(std::string_view text, const std::string& origin) {
  if (text.empty()) throw VocabularyError(origin + ": empty vocabulary file");
  RankTable table;
  const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  table.reserve(lines, text.size() * 3 / 4);
  std::string token;
  std::size_t line_no = 0;
  Rank previous = kNoRank;
  for (std::size_t pos = 0; pos < text.size();) {
    ++line_no;
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;  // tiktoken's loader skips blank lines too
    // The message is built only on failure: this loop runs 200,000 times for o200k_base.
    auto fail = [&](const std::string& fault) {
      throw VocabularyError(origin + ":" + std::to_string(line_no) + ": " + fault);
    };
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos) fail("expected 'BASE64 RANK', found " + printable(line));
    const std::string_view encoded = line.substr(0, space), digits = line.substr(space + 1);
    if (!decode_base64(encoded, token)) fail("bad base64 " + printable(encoded));
    if (digits.empty()) fail("missing rank");
    std::uint64_t rank = 0;
    for (const char c : digits) {
      if (c < '0' || c > '9') fail("bad rank " + printable(digits));
      rank = rank * 10 + unsigned(c - '0');
      if (rank > kMaxRank) fail("rank " + std::string(digits) + " is too large (at most " + std::to_string(kMaxRank) + ")");
    }
    if (previous != kNoRank && rank == previous) fail("rank " + std::to_string(rank) + " repeated (ranks must increase)");
    if (previous != kNoRank && rank < previous)
      fail("rank " + std::to_string(rank) + " out of order: follows rank " + std::to_string(previous));
    if (!table.insert(token, static_cast<Rank>(rank)))
      fail("duplicate token " + printable(token) + ", already rank " + std::to_string(table.find(token)));
    previous = static_cast<Rank>(rank);
  }
  // BPE starts from single bytes, so every byte needs a rank of its own.
  for (unsigned b = 0; b < 256; ++b) {
    const char byte = static_cast<char>(b);
    if (table.find(std::string_view(&byte, 1)) == kNoRank) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", b);
      throw VocabularyError(origin + ": no token for the single byte " + hex + "; every byte needs a rank");
    }
  }
  return table;
}

std::filesystem::path spec_path(const std::filesystem::path& ranks_file) {
  std::filesystem::path spec = ranks_file;
  return spec.replace_extension(".json");
}

}  // namespace

Vocabulary Vocabulary::load(const std::filesystem::path& ranks_file) {
  const std::filesystem::path spec_file = spec_path(ranks_file);
  if (!std::filesystem::exists(ranks_file))
    throw VocabularyError(ranks_file.string() + ": cannot open vocabulary file: no such file");
  if (!std::filesystem::exists(spec_file))
    throw VocabularyError(ranks_file.string() + ": no spec file " + spec_file.string() +
                          " beside it (it gives the pattern and special tokens)");
  SpecFile spec = read_spec_file(spec_file);
  if (spec.name.empty()) spec.name = ranks_file.stem().string();
  Vocabulary v = load(ranks_file, std::move(spec.name), std::move(spec.pattern), {});
  v.add_specials(std::move(spec.specials), spec_file.string());
  return v;
}

Vocabulary::Vocabulary(std::string name, std::string pattern, RankTable ranks)
    : name_(std::move(name)), pattern_(std::move(pattern)), ranks_(std::move(ranks)), id_end_(ranks_.rank_end()) {}

Vocabulary Vocabulary::load(const std::filesystem::path& ranks_file, std::string name, std::string pattern,
                            std::vector<SpecialToken> specials) {
  Vocabulary v(std::move(name), std::move(pattern), parse_ranks(read_file(ranks_file), ranks_file.string()));
  v.add_specials(std::move(specials), ranks_file.string());
  return v;
}

void Vocabulary::add_specials(std::vector<SpecialToken> specials, const std::string& origin) {
  for (SpecialToken& s : specials) {
    const std::string what = origin + ": special token " + printable(s.text);
    if (s.text.empty()) throw VocabularyError(origin + ": empty special token text");
    if (ranks_.contains(s.rank))
      throw VocabularyError(what + " has id " + std::to_string(s.rank) + ", which an ordinary token already has");
    for (const SpecialToken& other : specials_) {
      if (other.text == s.text) throw VocabularyError(what + " is listed twice");
      if (other.rank == s.rank)
        throw VocabularyError(what + " has id " + std::to_string(s.rank) + ", as " + printable(other.text) + " does");
    }
    id_end_ = std::max(id_end_, s.rank + 1);
    specials_.push_back(std::move(s));
  }
}

Vocabulary Vocabulary::builtin(std::string_view name) {
  if (std::find(std::begin(kBuiltinNames), std::end(kBuiltinNames), name) == std::end(kBuiltinNames)) {
    std::string known;
    for (const std::string_view n : kBuiltinNames) known += (known.empty() ? "" : ", ") + std::string(n);
    throw VocabularyError("unknown encoding '" + std::string(name) + "' (built in: " + known + ")");
  }
  return load(data_dir() / "vocab" / (std::string(name) + ".tiktoken"));
}

std::vector<std::string> Vocabulary::builtin_names() { return {std::begin(kBuiltinNames), std::end(kBuiltinNames)}; }

std::filesystem::path Vocabulary::data_dir() {
  const char* dir = std::getenv("TOKENIZER_DATA_DIR");
  return dir && *dir ? std::filesystem::path(dir) : std::filesystem::path(TOKBENCH_DATA_DIR);
}

const SpecialToken* Vocabulary::find_special(std::string_view text) const {
  for (const SpecialToken& s : specials_)
    if (s.text == text) return &s;
  return nullptr;
}

std::string_view Vocabulary::token_bytes(Rank id) const {
  if (ranks_.contains(id)) return ranks_.bytes(id);
  for (const SpecialToken& s : specials_)
    if (s.rank == id) return s.text;
  return {};
}

}  // namespace tokenizer
