#include "spec_file.hpp"

#include <fstream>
#include <limits>
#include <sstream>

namespace tokenizer {

namespace {

// A reader for the subset of JSON that spec files use, which it checks strictly: objects,
// strings (all escapes, surrogate pairs), non-negative integers, and any other value skipped over
// when it sits under a key we do not read. Only the spec's own fixed shape is read by descent.
class JsonReader {
 public:
  JsonReader(std::string text, std::string origin) : text_(std::move(text)), origin_(std::move(origin)) {}

  SpecFile read() {
    SpecFile spec;
    bool have_pattern = false;
    expect('{');
    if (!consume('}')) {
      do {
        const std::string key = string();
        expect(':');
        if (key == "name") spec.name = string();
        else if (key == "pat_str") spec.pattern = string(), have_pattern = true;
        else if (key == "special_tokens") spec.specials = specials();
        else skip_value();
      } while (consume(','));
      expect('}');
    }
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the top-level object");
    if (!have_pattern) fail("no \"pat_str\" key");
    return spec;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    std::size_t line = 1;
    for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i) line += text_[i] == '\n';
    throw VocabularyError(origin_ + ":" + std::to_string(line) + ": " + what);
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "'");
  }
  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
      else fail("bad hex digit in \\u escape");
    }
    return v;
  }
  static void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) out += char(c);
    else if (c < 0x800) out += char(0xC0 | c >> 6), out += char(0x80 | (c & 0x3F));
    else if (c < 0x10000) out += char(0xE0 | c >> 12), out += char(0x80 | (c >> 6 & 0x3F)), out += char(0x80 | (c & 0x3F));
    else
      out += char(0xF0 | c >> 18), out += char(0x80 | (c >> 12 & 0x3F)), out += char(0x80 | (c >> 6 & 0x3F)),
          out += char(0x80 | (c & 0x3F));
  }
  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos_;  // report the line the character is on, not the next one
        fail("control character in string");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated string");
      switch (const char e = text_[pos_++]) {
        case '"': case '\\': case '/': out += e; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          char32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00) {
            if (text_.compare(pos_, 2, "\\u") != 0) fail("lone high surrogate in \\u escape");
            pos_ += 2;
            const unsigned low = hex4();
            if (low < 0xDC00 || low >= 0xE000) fail("bad low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            fail("lone low surrogate in \\u escape");
          }
          append_utf8(out, cp);
          break;
        }
        default: fail(std::string("bad escape \\") + e);
      }
    }
  }
  Rank rank() {
    skip_space();
    const std::size_t start = pos_;
    std::uint64_t v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      v = v * 10 + unsigned(text_[pos_++] - '0');
      if (v >= kNoRank) fail("token id too large");
    }
    if (pos_ == start) fail("expected a non-negative integer token id");
    return static_cast<Rank>(v);
  }
  std::vector<SpecialToken> specials() {
    std::vector<SpecialToken> out;
    expect('{');
    if (consume('}')) return out;
    do {
      std::string text = string();
      expect(':');
      out.push_back({std::move(text), rank()});
    } while (consume(','));
    expect('}');
    return out;
  }
  // Skips one value of any depth without recursion: `closers` holds the bracket each container
  // still open needs, so a hostile file's nesting costs a byte of heap per level, not a stack
  // frame (100,000 nested '[' once overflowed the stack).
  void skip_value() {
    std::string closers;
    do {
      skip_space();
      if (pos_ >= text_.size()) fail("expected a value");
      const char c = text_[pos_];
      if (c == '{' || c == '[') {
        ++pos_;
        const char close = c == '{' ? '}' : ']';
        if (!consume(close)) {
          closers.push_back(close);
          if (c == '{') string(), expect(':');
          continue;  // to the container's first element
        }
      } else if (c == '"') {
        string();
      } else {
        skip_scalar();
      }
      // A whole value has been read: close each container that ends after it, or move on to
      // the next element (after its key, in an object) of the innermost one still open.
      while (!closers.empty()) {
        if (consume(',')) {
          if (closers.back() == '}') string(), expect(':');
          break;
        }
        expect(closers.back());
        closers.pop_back();
      }
    } while (!closers.empty());
  }
  void skip_scalar() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && std::string_view("+-.0123456789eEtruefalsn").find(text_[pos_]) != std::string_view::npos)
      ++pos_;
    if (pos_ == start) fail("expected a value");
  }

  std::string text_;
  std::string origin_;
  std::size_t pos_ = 0;
};

}  // namespace

SpecFile read_spec_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw VocabularyError(path.string() + ": cannot open spec file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_spec_file(std::move(text).str(), path.string());
}

SpecFile parse_spec_file(std::string text, std::string origin) {
  return JsonReader(std::move(text), std::move(origin)).read();
}

}  // namespace tokenizer
