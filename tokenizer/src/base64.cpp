#include "base64.hpp"

#include <array>
#include <cstdint>

namespace tokenizer {

namespace {

constexpr std::uint8_t kInvalid = 0xFF;

constexpr std::array<std::uint8_t, 256> make_table() {
  std::array<std::uint8_t, 256> t{};
  t.fill(kInvalid);
  constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t i = 0; i < alphabet.size(); ++i) t[static_cast<std::uint8_t>(alphabet[i])] = static_cast<std::uint8_t>(i);
  return t;
}
constexpr auto kTable = make_table();

}  // namespace

bool decode_base64(std::string_view text, std::string& out) {
  if (text.empty() || text.size() % 4 != 0) return false;
  std::size_t pad = 0;
  while (pad < 2 && text[text.size() - 1 - pad] == '=') ++pad;
  out.clear();
  std::uint32_t acc = 0;
  const std::size_t digits = text.size() - pad;
  for (std::size_t i = 0; i < digits; ++i) {
    const std::uint8_t v = kTable[static_cast<std::uint8_t>(text[i])];
    if (v == kInvalid) return false;
    acc = acc << 6 | v;
    if (i % 4 == 3) {
      out.push_back(static_cast<char>(acc >> 16));
      out.push_back(static_cast<char>(acc >> 8));
      out.push_back(static_cast<char>(acc));
      acc = 0;
    }
  }
  // The last group holds 2 digits (one byte) or 3 (two bytes); its unused low bits must be zero.
  if (pad == 2) {
    if (acc & 0xF) return false;
    out.push_back(static_cast<char>(acc >> 4));
  } else if (pad == 1) {
    if (acc & 0x3) return false;
    out.push_back(static_cast<char>(acc >> 10));
    out.push_back(static_cast<char>(acc >> 2));
  }
  return true;
}

}  // namespace tokenizer
