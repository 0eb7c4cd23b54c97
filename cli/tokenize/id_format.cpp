#include "id_format.hpp"

#include <charconv>
#include <stdexcept>
#include <string>

#include "binary_io.hpp"

namespace tokenizer::cli {

namespace {

constexpr std::size_t kMaxDecimalDigits = 10;  // of a uint32

// A malformed id as it may safely appear in a message: bytes outside printable ASCII escaped,
// long ones cut short.
std::string printable_token(std::string_view token) {
  constexpr std::size_t kShown = 32;
  std::string out = "'";
  for (const unsigned char c : token.substr(0, kShown)) {
    if (c >= 0x20 && c < 0x7F && c != '\\' && c != '\'') {
      out += static_cast<char>(c);
    } else {
      constexpr char kHex[] = "0123456789ABCDEF";
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out + (token.size() > kShown ? "...'" : "'");
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

Rank parse_decimal_id(std::string_view token, std::size_t position) {
  Rank id = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), id);
  // from_chars takes no sign and stops at the first non-digit; the whole token must be digits.
  if (error != std::errc() || end != token.data() + token.size()) {
    const std::string why = error == std::errc::result_out_of_range ? " (larger than 4294967295)" : "";
    throw std::runtime_error("bad token id " + printable_token(token) + " at position " + std::to_string(position) + why);
  }
  return id;
}

std::vector<Rank> read_text_ids(std::string_view text) {
  std::vector<Rank> ids;
  std::size_t pos = 0;
  for (;;) {
    while (pos < text.size() && is_space(text[pos])) ++pos;
    if (pos == text.size()) return ids;
    const std::size_t start = pos;
    while (pos < text.size() && !is_space(text[pos])) ++pos;
    ids.push_back(parse_decimal_id(text.substr(start, pos - start), ids.size()));
  }
}

std::vector<Rank> read_u32_ids(std::string_view bytes) {
  if (bytes.size() % 4 != 0)
    throw std::runtime_error("u32 input is " + std::to_string(bytes.size()) + " bytes long, not a multiple of 4");
  std::vector<Rank> ids(bytes.size() / 4);
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  for (std::size_t i = 0; i < ids.size(); ++i, b += 4)
    ids[i] = Rank(b[0]) | Rank(b[1]) << 8 | Rank(b[2]) << 16 | Rank(b[3]) << 24;
  return ids;
}

void write_text_ids(std::span<const Rank> ids, ChunkedWriter& writer) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    char* at = writer.reserve(kMaxDecimalDigits + 1);
    char* end = at;
    if (i != 0) *end++ = ' ';
    end = std::to_chars(end, at + kMaxDecimalDigits + 1, ids[i]).ptr;
    writer.commit(static_cast<std::size_t>(end - at));
  }
  *writer.reserve(1) = '\n';
  writer.commit(1);
}

void write_u32_ids(std::span<const Rank> ids, ChunkedWriter& writer) {
  for (const Rank id : ids) {
    auto* at = reinterpret_cast<unsigned char*>(writer.reserve(4));
    at[0] = static_cast<unsigned char>(id);
    at[1] = static_cast<unsigned char>(id >> 8);
    at[2] = static_cast<unsigned char>(id >> 16);
    at[3] = static_cast<unsigned char>(id >> 24);
    writer.commit(4);
  }
}

}  // namespace

std::optional<IdFormat> parse_id_format(std::string_view name) {
  if (name == "text") return IdFormat::text;
  if (name == "u32") return IdFormat::u32;
  if (name == "count") return IdFormat::count;
  return std::nullopt;
}

void write_ids(std::span<const Rank> ids, IdFormat format, std::FILE* out) {
  if (format == IdFormat::count) {
    write_bytes(out, std::to_string(ids.size()) + "\n");
    return;
  }
  ChunkedWriter writer(out);
  if (format == IdFormat::text) write_text_ids(ids, writer);
  else write_u32_ids(ids, writer);
  writer.flush();
}

std::vector<Rank> read_ids(std::string_view bytes, IdFormat format) {
  switch (format) {
    case IdFormat::text: return read_text_ids(bytes);
    case IdFormat::u32: return read_u32_ids(bytes);
    case IdFormat::count: break;
  }
  throw std::invalid_argument("the count format holds no ids to read");
}

}  // namespace tokenizer::cli
