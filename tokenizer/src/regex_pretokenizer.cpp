#include "tokenizer/regex_pretokenizer.hpp"

#include <unicode/regex.h>
#include <unicode/unistr.h>

#include <stdexcept>
#include <string>

#include "unicode_class.hpp"

namespace tokenizer {

RegexPreTokenizer::RegexPreTokenizer(std::string_view pattern) {
  UErrorCode status = U_ZERO_ERROR;
  UParseError where{};
  const auto text = icu::UnicodeString::fromUTF8(icu::StringPiece(pattern.data(), static_cast<int32_t>(pattern.size())));
  pattern_.reset(icu::RegexPattern::compile(text, 0, where, status));
  if (U_FAILURE(status))
    throw std::invalid_argument("invalid pre-tokenization pattern: " + std::string(u_errorName(status)) +
                                " at offset " + std::to_string(where.offset));
}

RegexPreTokenizer::~RegexPreTokenizer() = default;
RegexPreTokenizer::RegexPreTokenizer(RegexPreTokenizer&&) noexcept = default;
RegexPreTokenizer& RegexPreTokenizer::operator=(RegexPreTokenizer&&) noexcept = default;

std::vector<std::size_t> RegexPreTokenizer::piece_ends(std::string_view text) const {
  // UTF-16 copy of the text, with the byte offset at which each UTF-16 unit starts.
  const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
  icu::UnicodeString utf16;
  std::vector<std::size_t> byte_at;
  byte_at.reserve(text.size() + 1);
  for (std::size_t pos = 0; pos < text.size();) {
    const unicode::CodePoint cp = unicode::decode_utf8(data + pos, text.size() - pos);
    utf16.append(static_cast<UChar32>(cp.value));
    byte_at.insert(byte_at.end(), cp.value > 0xFFFF ? 2 : 1, pos);
    pos += cp.size;
  }
  byte_at.push_back(text.size());

  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::RegexMatcher> matcher(pattern_->matcher(utf16, status));
  // Long runs (a megabyte of letters) need a deep backtracking stack; ICU's default is 8 MB.
  if (U_SUCCESS(status)) matcher->setStackLimit(0, status);
  if (U_FAILURE(status)) throw std::runtime_error(std::string("ICU regex matcher: ") + u_errorName(status));
  std::vector<std::size_t> ends;
  std::size_t covered = 0;
  while (matcher->find(status) && U_SUCCESS(status)) {
    const std::size_t start = byte_at[static_cast<std::size_t>(matcher->start(status))];
    const std::size_t end = byte_at[static_cast<std::size_t>(matcher->end(status))];
    if (start != covered || end == start)
      throw std::runtime_error("pre-tokenization pattern leaves bytes " + std::to_string(covered) + ".." +
                               std::to_string(start) + " unmatched");
    ends.push_back(end);
    covered = end;
  }
  if (U_FAILURE(status)) throw std::runtime_error(std::string("ICU regex find: ") + u_errorName(status));
  if (covered != text.size())
    throw std::runtime_error("pre-tokenization pattern leaves bytes from " + std::to_string(covered) + " unmatched");
  return ends;
}

}  // namespace tokenizer
