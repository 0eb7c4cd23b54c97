#include "unicode_class.hpp"

#include <unicode/uchar.h>

#include <array>
#include <memory>

namespace tokenizer::unicode {

std::uint8_t classify_slow(char32_t c) {
  std::uint8_t bits = 0;
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_UPPERCASE_LETTER:
    case U_TITLECASE_LETTER: bits = kUpper; break;
    case U_LOWERCASE_LETTER: bits = kLower; break;
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER: bits = kOtherLetter; break;
    case U_NON_SPACING_MARK:
    case U_ENCLOSING_MARK:
    case U_COMBINING_SPACING_MARK: bits = kMark; break;
    case U_DECIMAL_DIGIT_NUMBER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER: bits = kNumber; break;
    default: break;
  }
  if (u_isUWhiteSpace(static_cast<UChar32>(c))) bits |= kSpace;
  if (c == '\r' || c == '\n') bits |= kNewline;
  return bits;
}

std::atomic<const std::uint8_t*> built_bmp_classes{nullptr};

const std::uint8_t* build_bmp_classes() {
  static const auto table = [] {
    auto t = std::make_unique<std::array<std::uint8_t, 0x10000>>();
    for (char32_t i = 0; i < 0x10000; ++i) (*t)[i] = classify_slow(i);
    return t;
  }();
  built_bmp_classes.store(table->data(), std::memory_order_release);
  return table->data();
}

ClassifiedChar classify_at(const std::uint8_t* p, std::size_t avail) {
  const CodePoint c = decode_utf8(p, avail);
  return {classify(c.value, bmp_classes()), c.size};
}

}  // namespace tokenizer::unicode
