#include "attention/npy_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace attention {

// Values are copied between files and memory as raw bytes: the file's '<f4' must be this
// machine's float.
static_assert(std::endian::native == std::endian::little, "npy I/O copies little-endian float32 bytes as they are");
static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559);

NpyError::NpyError(const std::filesystem::path& path, const std::string& fault)
    : std::runtime_error(path.string() + ": " + fault) {}

std::string shape_to_string(std::span<const std::size_t> shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

namespace {

// A file starts with the magic string, the format version (major, minor byte), the header's
// length (little-endian: 2 bytes in version 1.0, 4 in 2.0 and 3.0), then the header: a Python
// dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...), } padded with spaces and a
// final '\n' so that the data start at a multiple of kDataAlignment. The data follow, to the end
// of the file. Version 3.0 differs from 2.0 only in allowing UTF-8 in the header, which a float32
// header never needs.
constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kVersionSize = 2;
constexpr std::size_t kShortLengthSize = 2;
constexpr std::size_t kLongLengthSize = 4;
constexpr std::size_t kDataAlignment = 64;
constexpr std::string_view kFloat32Descr = "<f4";
// Deeper nesting than any dtype needs: bounds the parser's recursion on hostile headers.
constexpr int kMaxNesting = 32;
// How much of a header a message quotes.
constexpr std::size_t kQuotedHeaderChars = 160;
// Header and data are read in pieces of this size (see read_elements).
constexpr std::size_t kReadChunkBytes = std::size_t{4} << 20;

struct CloseFile {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FileHandle = std::unique_ptr<std::FILE, CloseFile>;

std::string system_fault(std::string_view what) { return std::string(what) + ": " + std::strerror(errno); }

// The number of values, and their bytes, of an array of this shape; nullopt if the byte count
// overflows size_t.
struct ArraySize {
  std::size_t values;
  std::size_t bytes;
};
std::optional<ArraySize> array_size(std::span<const std::size_t> shape) {
  // A zero dimension makes the others harmless, however large.
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return ArraySize{0, 0};
  std::size_t values = 1;
  for (const std::size_t dimension : shape)
    if (__builtin_mul_overflow(values, dimension, &values)) return std::nullopt;
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(values, sizeof(float), &bytes)) return std::nullopt;
  return ArraySize{values, bytes};
}

// Header text as a message may quote it: printable ASCII kept, other bytes escaped, cut short.
std::string quoted_header(std::string_view header) {
  std::string out = "\"";
  for (const unsigned char c : header.substr(0, kQuotedHeaderChars)) {
    if (c >= 0x20 && c < 0x7F && c != '\\' && c != '"') {
      out += static_cast<char>(c);
    } else {
      constexpr char kHex[] = "0123456789ABCDEF";
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out + (header.size() > kQuotedHeaderChars ? "...\"" : "\"");
}

// A Python literal of the kinds a .npy header holds (structured dtypes nest lists and tuples).
struct Literal {
  enum class Kind { string, integer, boolean, tuple, list };
  Kind kind = Kind::string;
  std::string_view source;  // as written in the header, for messages
  std::string_view string;
  std::size_t integer = 0;
  bool boolean = false;
  std::vector<Literal> items;
  // A tuple written with a comma after its last item, as "(5,)" must be.
  bool trailing_comma = false;
};

struct HeaderEntry {
  std::string_view key;
  Literal value;
};

// Parses the header's dict literal: string keys, values of the kinds in Literal, whitespace and
// a trailing comma where Python allows them. Throws NpyError on anything else.
class HeaderParser {
 public:
  HeaderParser(const std::filesystem::path& path, std::string_view header) : path_(path), header_(header) {}

  std::vector<HeaderEntry> parse_dict() {
    std::vector<HeaderEntry> entries;
    expect('{');
    while (!accept('}')) {
      const Literal key = parse_literal(0);
      if (key.kind != Literal::Kind::string) fail("a dict key that is not a string", key.source);
      expect(':');
      entries.push_back({key.string, parse_literal(0)});
      if (!accept(',')) {
        expect_end('}');
        break;
      }
    }
    skip_space();
    if (pos_ != header_.size()) fail("text after the dict", header_.substr(pos_));
    return entries;
  }

  [[noreturn]] void fail(std::string_view fault, std::string_view found) const {
    throw NpyError(path_, "malformed header: " + std::string(fault) + " (" + quoted_header(found) + ") in " +
                              quoted_header(header_));
  }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  void skip_space() {
    while (pos_ < header_.size() && is_space(header_[pos_])) ++pos_;
  }
  std::string_view rest() const { return header_.substr(pos_); }

  bool accept(char c) {
    skip_space();
    if (pos_ == header_.size() || header_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'", rest());
  }
  // After an item that no comma followed.
  void expect_end(char close) {
    if (!accept(close)) fail(std::string("expected ',' or '") + close + "'", rest());
  }

  Literal parse_literal(int depth) {
    if (depth > kMaxNesting) fail("nesting deeper than " + std::to_string(kMaxNesting), rest());
    skip_space();
    const std::size_t start = pos_;
    Literal literal;
    const char c = pos_ < header_.size() ? header_[pos_] : '\0';
    if (c == '\'' || c == '"') {
      // Taken without escape sequences, which neither a key nor a numeric descr contains.
      literal.kind = Literal::Kind::string;
      const std::size_t end = header_.find(c, pos_ + 1);
      if (end == std::string_view::npos) fail("unterminated string", rest());
      literal.string = header_.substr(pos_ + 1, end - pos_ - 1);
      pos_ = end + 1;
    } else if (is_digit(c)) {
      literal.kind = Literal::Kind::integer;
      const char* first = header_.data() + pos_;
      const auto [end, error] = std::from_chars(first, header_.data() + header_.size(), literal.integer);
      pos_ += static_cast<std::size_t>(end - first);
      if (error == std::errc::result_out_of_range)
        throw NpyError(path_, "absurd size: the integer " + std::string(header_.substr(start, pos_ - start)) +
                                  " in the header does not fit size_t");
      // Python 2 wrote long integers with a suffix: (3L, 4L).
      if (pos_ < header_.size() && header_[pos_] == 'L') ++pos_;
    } else if (rest().starts_with("True") || rest().starts_with("False")) {
      literal.kind = Literal::Kind::boolean;
      literal.boolean = c == 'T';
      pos_ += literal.boolean ? 4 : 5;
    } else if (c == '(' || c == '[') {
      literal.kind = c == '(' ? Literal::Kind::tuple : Literal::Kind::list;
      const char close = c == '(' ? ')' : ']';
      ++pos_;
      while (!accept(close)) {
        literal.items.push_back(parse_literal(depth + 1));
        literal.trailing_comma = accept(',');
        if (!literal.trailing_comma) {
          expect_end(close);
          break;
        }
      }
    } else {
      fail("expected a string, an integer, True, False, a tuple or a list", rest());
    }
    literal.source = header_.substr(start, pos_ - start);
    return literal;
  }

  const std::filesystem::path& path_;
  std::string_view header_;
  std::size_t pos_ = 0;
};

// "float64", "big-endian float32", "int32"...: what a simple numeric descr means; empty for
// others.
std::string dtype_name(std::string_view descr) {
  if (descr.size() < 3) return {};
  const char order = descr[0];
  const char kind = descr[1];
  unsigned bytes = 0;
  const auto [end, error] = std::from_chars(descr.data() + 2, descr.data() + descr.size(), bytes);
  if (error != std::errc() || end != descr.data() + descr.size() ||
      std::string_view("<>|=").find(order) == std::string_view::npos)
    return {};
  const std::string bits = std::to_string(bytes * 8);
  std::string name;
  switch (kind) {
    case 'f': name = "float" + bits; break;
    case 'i': name = "int" + bits; break;
    case 'u': name = "uint" + bits; break;
    case 'c': name = "complex" + bits; break;
    case 'b': name = "bool"; break;
    default: return {};
  }
  return (order == '>' && bytes > 1 ? "big-endian " : "") + name;
}

void check_descr(const std::filesystem::path& path, const Literal& descr) {
  if (descr.kind == Literal::Kind::string && descr.string == kFloat32Descr) return;
  std::string found = std::string(descr.source);
  if (descr.kind == Literal::Kind::list)
    found += " (a structured dtype)";
  else if (const std::string name = descr.kind == Literal::Kind::string ? dtype_name(descr.string) : ""; !name.empty())
    found += " (" + name + ")";
  throw NpyError(path, "unsupported dtype " + found + ": only little-endian float32 ('<f4') is read");
}

std::vector<std::size_t> shape_of(const HeaderParser& parser, const Literal& shape) {
  // "(5)" is the integer 5 in Python, not a shape.
  const bool is_tuple = shape.kind == Literal::Kind::tuple && (shape.items.size() != 1 || shape.trailing_comma);
  if (!is_tuple) parser.fail("'shape' is not a tuple", shape.source);
  std::vector<std::size_t> dimensions;
  for (const Literal& item : shape.items) {
    if (item.kind != Literal::Kind::integer) parser.fail("a dimension that is not a non-negative integer", item.source);
    dimensions.push_back(item.integer);
  }
  return dimensions;
}

// The shape the header describes, once its dtype and order are the ones this reader accepts.
std::vector<std::size_t> parse_header(const std::filesystem::path& path, std::string_view header) {
  HeaderParser parser(path, header);
  const Literal* descr = nullptr;
  const Literal* fortran_order = nullptr;
  const Literal* shape = nullptr;
  const std::vector<HeaderEntry> entries = parser.parse_dict();
  for (const HeaderEntry& entry : entries) {
    const Literal** slot = entry.key == "descr"           ? &descr
                           : entry.key == "fortran_order" ? &fortran_order
                           : entry.key == "shape"         ? &shape
                                                          : nullptr;
    if (!slot) parser.fail("unexpected key '" + std::string(entry.key) + "'", entry.value.source);
    if (*slot) parser.fail("key '" + std::string(entry.key) + "' given twice", entry.value.source);
    *slot = &entry.value;
  }
  for (const auto& [key, value] : {std::pair{"descr", descr}, {"fortran_order", fortran_order}, {"shape", shape}})
    if (!value) parser.fail("no '" + std::string(key) + "' key", header);
  check_descr(path, *descr);
  if (fortran_order->kind != Literal::Kind::boolean)
    parser.fail("'fortran_order' is not True or False", fortran_order->source);
  if (fortran_order->boolean)
    throw NpyError(path,
                   "Fortran-ordered data (fortran_order True) are not supported: save a C-ordered array "
                   "(numpy.ascontiguousarray)");
  return shape_of(parser, *shape);
}

// Reads up to `size` bytes; fewer only at the end of the file. Throws on a read error.
std::size_t read_bytes(const std::filesystem::path& path, std::FILE* file, void* out, std::size_t size) {
  const std::size_t got = std::fread(out, 1, size, file);
  if (got < size && std::ferror(file)) throw NpyError(path, system_fault("cannot read"));
  return got;
}

// Reads up to `count` elements into `out` (a std::string or std::vector<float>), growing it a
// chunk at a time: a count that the file does not back costs memory only for the bytes that
// really come, which matters where the file's size is not known in advance (a pipe). Returns the
// number of bytes read; fewer than count elements' only at the end of the file.
template <class Container>
std::size_t read_elements(const std::filesystem::path& path, std::FILE* file, Container& out, std::size_t count) {
  using Element = typename Container::value_type;
  constexpr std::size_t kChunkElements = kReadChunkBytes / sizeof(Element);
  out.clear();
  while (out.size() < count) {
    const std::size_t start = out.size();
    const std::size_t chunk = std::min(kChunkElements, count - start);
    out.resize(start + chunk);
    const std::size_t got = read_bytes(path, file, out.data() + start, chunk * sizeof(Element));
    if (got < chunk * sizeof(Element)) return start * sizeof(Element) + got;
  }
  return count * sizeof(Element);
}

std::uint32_t little_endian(const unsigned char* bytes, std::size_t size) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < size; ++i) value |= std::uint32_t{bytes[i]} << (8 * i);
  return value;
}

NpyError truncated_header(const std::filesystem::path& path, std::size_t announced, std::size_t present) {
  return NpyError(path, "truncated header: " + std::to_string(announced) + " bytes announced, " +
                            std::to_string(present) + " in the file");
}

// `found`: how many data bytes the file has, "more than N" where it was not read to its end.
NpyError data_size_mismatch(const std::filesystem::path& path, std::span<const std::size_t> shape, std::size_t needed,
                            std::size_t header_end, bool truncated, const std::string& found) {
  return NpyError(path, std::string(truncated ? "truncated data" : "trailing data") + ": shape " +
                            shape_to_string(shape) + " needs " + std::to_string(needed) +
                            " bytes of float32 data, the file has " + found + " after its " +
                            std::to_string(header_end) + "-byte header");
}

}  // namespace

NpyArray read_npy(const std::filesystem::path& path) {
  const FileHandle file(std::fopen(path.c_str(), "rb"));
  if (!file) throw NpyError(path, system_fault("cannot open"));

  unsigned char prefix[kMagic.size() + kVersionSize + kLongLengthSize];
  const std::size_t prefix_got = read_bytes(path, file.get(), prefix, kMagic.size() + kVersionSize);
  if (prefix_got < kMagic.size() || std::memcmp(prefix, kMagic.data(), kMagic.size()) != 0)
    throw NpyError(path, "not a .npy file: it does not start with the magic string \\x93NUMPY");
  if (prefix_got < kMagic.size() + kVersionSize)
    throw NpyError(path, "truncated header: the file ends inside the format version");
  const unsigned major = prefix[kMagic.size()], minor = prefix[kMagic.size() + 1];
  if (major < 1 || major > 3 || minor != 0)
    throw NpyError(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                             " (1.0, 2.0 and 3.0 are read)");
  const std::size_t length_size = major == 1 ? kShortLengthSize : kLongLengthSize;
  unsigned char* length_bytes = prefix + kMagic.size() + kVersionSize;
  if (read_bytes(path, file.get(), length_bytes, length_size) < length_size)
    throw NpyError(path, "truncated header: the file ends inside the header length");
  const std::size_t header_start = kMagic.size() + kVersionSize + length_size;
  const std::size_t header_size = little_endian(length_bytes, length_size);
  const std::size_t header_end = header_start + header_size;

  // A regular file's size bounds every size the header claims before anything is allocated.
  struct stat info {};
  const bool size_known = ::fstat(::fileno(file.get()), &info) == 0 && S_ISREG(info.st_mode);
  const auto file_size = static_cast<std::size_t>(info.st_size);
  if (size_known && file_size < header_end) throw truncated_header(path, header_size, file_size - header_start);
  std::string header;
  if (const std::size_t got = read_elements(path, file.get(), header, header_size); got < header_size)
    throw truncated_header(path, header_size, got);

  NpyArray array;
  array.shape = parse_header(path, header);
  const std::optional<ArraySize> size = array_size(array.shape);
  if (!size)
    throw NpyError(path, "absurd size: shape " + shape_to_string(array.shape) + " needs more than 2^64 bytes of data");
  if (size_known && file_size - header_end != size->bytes) {
    const std::size_t data_bytes = file_size - header_end;
    throw data_size_mismatch(path, array.shape, size->bytes, header_end, data_bytes < size->bytes,
                             std::to_string(data_bytes));
  }
  if (const std::size_t got = read_elements(path, file.get(), array.values, size->values); got < size->bytes)
    throw data_size_mismatch(path, array.shape, size->bytes, header_end, true, std::to_string(got));
  unsigned char extra = 0;
  if (read_bytes(path, file.get(), &extra, 1) != 0)
    throw data_size_mismatch(path, array.shape, size->bytes, header_end, false,
                             "more than " + std::to_string(size->bytes));
  return array;
}

namespace {

// Magic string, version, header length and the padded header: every byte before the data.
std::string npy_prefix(std::span<const std::size_t> shape) {
  const std::string dict = "{'descr': '" + std::string(kFloat32Descr) +
                           "', 'fortran_order': False, 'shape': " + shape_to_string(shape) + ", }";
  const auto prefix_for = [&](unsigned major, std::size_t length_size) {
    const std::size_t unpadded = kMagic.size() + kVersionSize + length_size + dict.size() + 1;
    const std::size_t header_size = dict.size() + (kDataAlignment - unpadded % kDataAlignment) % kDataAlignment + 1;
    std::string prefix(kMagic);
    prefix += {static_cast<char>(major), '\0'};
    for (std::size_t i = 0; i < length_size; ++i) prefix += static_cast<char>(header_size >> (8 * i));
    prefix += dict;
    prefix.resize(prefix.size() + header_size - dict.size() - 1, ' ');
    return std::pair{prefix + '\n', header_size};
  };
  auto [prefix, header_size] = prefix_for(1, kShortLengthSize);
  if (header_size <= std::numeric_limits<std::uint16_t>::max()) return prefix;
  return prefix_for(2, kLongLengthSize).first;
}

}  // namespace

void check_npy_destination(const std::filesystem::path& path) {
  const auto refuse = [&path](std::errc fault) {
    throw NpyError(path, "cannot write: " + std::make_error_code(fault).message());
  };
  // A folder is refused here, not by the rename at the end of write_npy: that would refuse it
  // only after the whole array went to a temporary file, and for "." or ".." with EBUSY's message.
  if (std::error_code ignored; std::filesystem::is_directory(path, ignored)) refuse(std::errc::is_a_directory);
  // The temporary file is created in the folder: it must exist, be a folder and take new entries.
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  struct stat info {};
  if (::stat(folder.c_str(), &info) != 0) throw NpyError(path, system_fault("cannot write"));
  if (!S_ISDIR(info.st_mode)) refuse(std::errc::not_a_directory);
  if (::access(folder.c_str(), W_OK | X_OK) != 0) throw NpyError(path, system_fault("cannot write"));
}

void write_npy(const std::filesystem::path& path, std::span<const std::size_t> shape, std::span<const float> values) {
  const std::optional<ArraySize> size = array_size(shape);
  if (!size || size->values != values.size())
    throw std::invalid_argument("write_npy: shape " + shape_to_string(shape) + " does not hold the " +
                                std::to_string(values.size()) + " values given");
  const std::string prefix = npy_prefix(shape);

  check_npy_destination(path);
  std::filesystem::path temporary = path;
  temporary += ".tmp" + std::to_string(::getpid());
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) throw NpyError(path, system_fault("cannot write"));
  std::string fault;
  if (std::fwrite(prefix.data(), 1, prefix.size(), file) != prefix.size() ||
      (!values.empty() && std::fwrite(values.data(), sizeof(float), values.size(), file) != values.size()))
    fault = system_fault("cannot write");
  // fclose flushes what fwrite buffered, so it may be the call that meets a full disk.
  if (std::fclose(file) != 0 && fault.empty()) fault = system_fault("cannot write");
  if (std::error_code renamed; fault.empty()) {
    std::filesystem::rename(temporary, path, renamed);
    if (renamed) fault = "cannot write: " + renamed.message();
  }
  if (!fault.empty()) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw NpyError(path, fault);
  }
}

}  // namespace attention
