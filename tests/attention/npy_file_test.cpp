// NumPy .npy files: round trips bit for bit, the exact bytes written, headers written by hand in
// every accepted form, and a precise error for every malformed file.
#include "attention/npy_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test_directory.hpp"

namespace attention {
namespace {

namespace fs = std::filesystem;

using test::TestDirectory;

std::string read_binary(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string little_endian(std::uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out += static_cast<char>(value >> (8 * i));
  return out;
}

// A .npy file as bytes: magic, version, header length (2 bytes for major 1, else 4), the header
// exactly as given (no padding added), then the data.
std::string npy_bytes(int major, int minor, std::string_view header, std::string_view data) {
  return std::string("\x93NUMPY") + static_cast<char>(major) + static_cast<char>(minor) +
         little_endian(header.size(), major == 1 ? 2 : 4) + std::string(header) + std::string(data);
}

std::string float_bytes(const std::vector<float>& values) {
  std::string out;
  for (const float v : values) out += little_endian(std::bit_cast<std::uint32_t>(v), 4);
  return out;
}

std::string f4_header(const std::string& shape) {
  return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }\n";
}

void expect_same_bits(const std::vector<float>& expected, const std::vector<float>& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint32_t>(expected[i]), std::bit_cast<std::uint32_t>(actual[i])) << "value " << i;
}

std::size_t product(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (const std::size_t d : shape) n *= d;
  return n;
}

// Every special float32 first (infinities, NaNs with payloads and sign, signed zeros, the
// smallest subnormal, the largest finite value), then random bit patterns.
std::vector<float> awkward_values(std::size_t count) {
  const std::uint32_t specials[] = {0xFF800000u, 0x7F800000u, 0x7FC00000u, 0xFFC00001u, 0x7F800001u,
                                    0x80000000u, 0x00000000u, 0x00000001u, 0x7F7FFFFFu, 0x3F800000u};
  std::mt19937 rng(42);
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i)
    values[i] = std::bit_cast<float>(i < std::size(specials) ? specials[i] : static_cast<std::uint32_t>(rng()));
  return values;
}

class NpyFile : public TestDirectory {
 protected:
  // The message of the NpyError that reading `path` throws; "" (and a failure) if none.
  std::string read_error(const fs::path& path) const {
    try {
      (void)read_npy(path);
      ADD_FAILURE() << "no error reading " << path;
    } catch (const NpyError& e) {
      EXPECT_TRUE(std::string(e.what()).starts_with(path.string() + ": ")) << e.what();
      return e.what();
    }
    return {};
  }
  std::string read_error_of_bytes(std::string_view bytes) const { return read_error(write_file("bad.npy", bytes)); }
};

class NpyRoundTrip : public NpyFile, public ::testing::WithParamInterface<std::vector<std::size_t>> {};

TEST_P(NpyRoundTrip, GivesBackShapeAndEveryBit) {
  const std::vector<std::size_t>& shape = GetParam();
  const std::vector<float> values = awkward_values(product(shape));
  const fs::path path = dir() / "array.npy";
  write_npy(path, shape, values);
  const NpyArray array = read_npy(path);
  EXPECT_EQ(array.shape, shape);
  expect_same_bits(values, array.values);
  EXPECT_EQ(entries(), std::vector<std::string>{"array.npy"});  // no temporary file left
}

INSTANTIATE_TEST_SUITE_P(Shapes, NpyRoundTrip,
                         ::testing::Values(std::vector<std::size_t>{}, std::vector<std::size_t>{0},
                                           std::vector<std::size_t>{1}, std::vector<std::size_t>{17},
                                           std::vector<std::size_t>{2, 3}, std::vector<std::size_t>{2, 0, 3},
                                           std::vector<std::size_t>{0, 0}, std::vector<std::size_t>{2, 3, 5, 7},
                                           std::vector<std::size_t>{3, 1, 1, 2, 1}));

TEST_F(NpyFile, WritesNumpysLayoutAlignedTo64Bytes) {
  const fs::path path = dir() / "a.npy";
  write_npy(path, std::vector<std::size_t>{2, 3}, std::vector<float>{1, 2, 3, 4, 5, -0.0f});
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  // 10 bytes of magic, version and length, then the dict padded to end at byte 128.
  const std::string header = dict + std::string(128 - 10 - dict.size() - 1, ' ') + "\n";
  EXPECT_EQ(read_binary(path), npy_bytes(1, 0, header, float_bytes({1, 2, 3, 4, 5, -0.0f})));
}

TEST_F(NpyFile, WritesShapesAsPythonTuples) {
  const fs::path path = dir() / "a.npy";
  write_npy(path, std::vector<std::size_t>{}, std::vector<float>{7});
  EXPECT_NE(read_binary(path).find("'shape': (), }"), std::string::npos);
  write_npy(path, std::vector<std::size_t>{4}, std::vector<float>(4));
  EXPECT_NE(read_binary(path).find("'shape': (4,), }"), std::string::npos);
}

TEST_F(NpyFile, HeaderTooLongForVersion1IsWrittenAsVersion2) {
  // 22000 dimensions of 1 make a dict of about 66000 characters, past 1.0's 16-bit length.
  const std::vector<std::size_t> shape(22000, 1);
  const fs::path path = dir() / "a.npy";
  write_npy(path, shape, std::vector<float>{-3.5f});
  const std::string bytes = read_binary(path);
  ASSERT_GT(bytes.size(), 12u);
  EXPECT_EQ(bytes[6], 2);
  EXPECT_EQ(bytes[7], 0);
  EXPECT_EQ((bytes.size() - 4) % 64, 0u);  // the data start on a 64-byte boundary
  const NpyArray array = read_npy(path);
  EXPECT_EQ(array.shape, shape);
  EXPECT_EQ(array.values, std::vector<float>{-3.5f});
}

TEST_F(NpyFile, ReplacesAnExistingFile) {
  const fs::path path = write_file("a.npy", "old content, longer than the new file will be........");
  write_npy(path, std::vector<std::size_t>{1}, std::vector<float>{2});
  EXPECT_EQ(read_npy(path).values, std::vector<float>{2});
}

TEST_F(NpyFile, ReadsVersion2And3Headers) {
  const std::string data = float_bytes({1.5f, -2, 3});
  for (const int major : {2, 3}) {
    SCOPED_TRACE(major);
    const NpyArray array = read_npy(write_file("v.npy", npy_bytes(major, 0, f4_header("(3,)"), data)));
    EXPECT_EQ(array.shape, std::vector<std::size_t>{3});
    EXPECT_EQ(array.values, (std::vector<float>{1.5f, -2, 3}));
  }
}

TEST_F(NpyFile, ReadsHeadersInAnyPythonSpelling) {
  // Keys in another order, double quotes, no trailing comma, odd whitespace, Python 2's long
  // suffix, no padding and no final newline: Python reads all of these, and so must this reader.
  const std::string data = float_bytes({1, 2, 3, 4, 5, 6});
  for (const std::string& header :
       {std::string("{\"shape\":(2,3),\"fortran_order\":False,\"descr\":\"<f4\"}"),
        std::string("{ 'descr' : '<f4' ,\n\t'fortran_order' : False , 'shape' : ( 2 , 3 , ) , }   \n"),
        std::string("{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }        \n")}) {
    SCOPED_TRACE(header);
    const NpyArray array = read_npy(write_file("s.npy", npy_bytes(1, 0, header, data)));
    EXPECT_EQ(array.shape, (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(array.values, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  }
}

TEST_F(NpyFile, ZeroDimensionMakesHugeOthersHarmless) {
  const NpyArray array =
      read_npy(write_file("z.npy", npy_bytes(1, 0, f4_header("(0, 9223372036854775808, 9223372036854775808)"), "")));
  EXPECT_EQ(array.shape, (std::vector<std::size_t>{0, std::size_t{1} << 63, std::size_t{1} << 63}));
  EXPECT_TRUE(array.values.empty());
}

TEST_F(NpyFile, ReadsFromAPipe) {
  const fs::path fifo = dir() / "pipe.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<float> values = awkward_values(3 * 1000 * 1000);  // several read chunks
  const std::string bytes = npy_bytes(1, 0, f4_header("(3000, 1000)"), float_bytes(values));
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << bytes; });
  const NpyArray array = read_npy(fifo);
  writer.join();
  EXPECT_EQ(array.shape, (std::vector<std::size_t>{3000, 1000}));
  expect_same_bits(values, array.values);
}

TEST_F(NpyFile, PipeWithTooMuchOrTooLittleDataIsAnError) {
  const fs::path fifo = dir() / "pipe.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string header = f4_header("(2, 3)");
  const std::size_t header_end = 10 + header.size();
  const std::string prefix = "shape (2, 3) needs 24 bytes of float32 data, the file has ";
  const std::pair<std::string, std::string> cases[] = {
      {float_bytes({1, 2, 3, 4, 5}) + "xy", "truncated data: " + prefix + "22 after its " + std::to_string(header_end)},
      {float_bytes({1, 2, 3, 4, 5, 6, 7}), "trailing data: " + prefix + "more than 24 after its "},
      // A huge shape that a pipe does not back is refused after the bytes that came, not by an
      // allocation of its full size.
      {"", "truncated data: shape (1152921504606846976,) needs 4611686018427387904 bytes of float32 data, the file "
           "has 0"}};
  for (const auto& [data, fault] : cases) {
    SCOPED_TRACE(fault);
    const std::string bytes = npy_bytes(1, 0, data.empty() ? f4_header("(1152921504606846976,)") : header, data);
    std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << bytes; });
    const std::string message = read_error(fifo);
    writer.join();
    EXPECT_NE(message.find(fault), std::string::npos) << message;
  }
}

TEST_F(NpyFile, MissingFileAndDirectoryAreErrors) {
  EXPECT_NE(read_error(dir() / "absent.npy").find(": cannot open: No such file or directory"), std::string::npos);
  EXPECT_NE(read_error(dir()).find(": cannot read: Is a directory"), std::string::npos);
}

struct MalformedCase {
  std::string name;
  std::string bytes;
  std::string fault;  // expected in the message

  friend void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.name; }
};

class NpyMalformed : public NpyFile, public ::testing::WithParamInterface<MalformedCase> {};

TEST_P(NpyMalformed, IsAnErrorNamingTheFault) {
  const std::string message = read_error_of_bytes(GetParam().bytes);
  EXPECT_NE(message.find(GetParam().fault), std::string::npos)
      << "expected '" << GetParam().fault << "' in: " << message;
}

const std::string kSixFloats = float_bytes({1, 2, 3, 4, 5, 6});

MalformedCase with_header(std::string name, std::string header, std::string fault) {
  return {std::move(name), npy_bytes(1, 0, header, kSixFloats), std::move(fault)};
}

INSTANTIATE_TEST_SUITE_P(
    Cases, NpyMalformed,
    ::testing::Values(
        MalformedCase{"Empty", "", "not a .npy file: it does not start with the magic string \\x93NUMPY"},
        MalformedCase{"ShorterThanMagic", "\x93NUM", "not a .npy file"},
        MalformedCase{"BadMagic", "\x93NUMPX\x01\x00", "not a .npy file"},
        MalformedCase{"TextFile", "hello, world\n", "not a .npy file"},
        MalformedCase{"NoVersion", "\x93NUMPY\x01", "truncated header: the file ends inside the format version"},
        MalformedCase{"Version4", npy_bytes(4, 0, f4_header("(6,)"), kSixFloats),
                      "unsupported .npy format version 4.0 (1.0, 2.0 and 3.0 are read)"},
        MalformedCase{"Version0", npy_bytes(0, 0, f4_header("(6,)"), kSixFloats),
                      "unsupported .npy format version 0.0"},
        MalformedCase{"Version1_1", npy_bytes(1, 1, f4_header("(6,)"), kSixFloats),
                      "unsupported .npy format version 1.1"},
        MalformedCase{"NoHeaderLength", std::string("\x93NUMPY\x01\x00\x40", 9),
                      "truncated header: the file ends inside the header length"},
        MalformedCase{"NoVersion2HeaderLength", std::string("\x93NUMPY\x02\x00\x40\x00\x00", 11),
                      "truncated header: the file ends inside the header length"},
        MalformedCase{"HeaderShorterThanAnnounced", std::string("\x93NUMPY\x01\x00\x64\x00{'descr': '<f4'", 25),
                      "truncated header: 100 bytes announced, 15 in the file"},
        MalformedCase{"HugeVersion2HeaderLength", std::string("\x93NUMPY\x02\x00\xFF\xFF\xFF\xFF{}", 14),
                      "truncated header: 4294967295 bytes announced, 2 in the file"},
        with_header("NotADict", "['descr', '<f4']\n", "malformed header: expected '{' (\"['descr', '<f4']\\x0A\")"),
        with_header("NoColon", "{'descr' '<f4', 'fortran_order': False, 'shape': (6,), }",
                    "malformed header: expected ':' (\"'<f4', 'fortran_order'"),
        with_header("UnterminatedString", "{'descr': '<f4, 'fortran_order': False, 'shape': (6,), }",
                    "malformed header: expected ',' or '}' (\"fortran_order'"),
        with_header("UnterminatedDict", "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)",
                    "malformed header: expected ',' or '}' (\"\")"),
        with_header("UnterminatedKey", "{'descr", "malformed header: unterminated string"),
        with_header("NonStringKey", "{1: '<f4'}", "malformed header: a dict key that is not a string (\"1\")"),
        with_header("TextAfterDict", f4_header("(6,)") + "x", "malformed header: text after the dict (\"x\")"),
        with_header("UnknownKey", "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'extra': 1}",
                    "malformed header: unexpected key 'extra'"),
        with_header("DuplicateKey", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}",
                    "malformed header: key 'descr' given twice"),
        with_header("NoShape", "{'descr': '<f4', 'fortran_order': False}", "malformed header: no 'shape' key"),
        with_header("NoDescr", "{'fortran_order': False, 'shape': (6,)}", "malformed header: no 'descr' key"),
        with_header("NoFortranOrder", "{'descr': '<f4', 'shape': (6,)}", "malformed header: no 'fortran_order' key"),
        with_header("ShapeList", f4_header("[6]"), "malformed header: 'shape' is not a tuple (\"[6]\")"),
        with_header("ShapeInteger", f4_header("6"), "malformed header: 'shape' is not a tuple (\"6\")"),
        with_header("ShapeParenthesisedInteger", f4_header("(6)"),
                    "malformed header: 'shape' is not a tuple (\"(6)\")"),
        with_header("NegativeDimension", f4_header("(-6,)"), "malformed header: expected a string, an integer, True"),
        with_header("StringDimension", f4_header("('6',)"),
                    "malformed header: a dimension that is not a non-negative integer (\"'6'\")"),
        with_header("FortranOrderNotBool", "{'descr': '<f4', 'fortran_order': 0, 'shape': (6,)}",
                    "malformed header: 'fortran_order' is not True or False (\"0\")"),
        with_header("NestedTooDeeply", "{'descr': " + std::string(100, '[') + std::string(100, ']') + "}",
                    "malformed header: nesting deeper than 32"),
        with_header("Float64", "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                    "unsupported dtype '<f8' (float64): only little-endian float32 ('<f4') is read"),
        with_header("BigEndianFloat32", "{'descr': '>f4', 'fortran_order': False, 'shape': (6,), }",
                    "unsupported dtype '>f4' (big-endian float32): only little-endian float32 ('<f4') is read"),
        with_header("Int32", "{'descr': '<i4', 'fortran_order': False, 'shape': (6,), }",
                    "unsupported dtype '<i4' (int32)"),
        with_header("Uint8", "{'descr': '|u1', 'fortran_order': False, 'shape': (24,), }",
                    "unsupported dtype '|u1' (uint8)"),
        with_header("Float16", "{'descr': '<f2', 'fortran_order': False, 'shape': (12,), }",
                    "unsupported dtype '<f2' (float16)"),
        with_header("UnicodeString", "{'descr': '<U2', 'fortran_order': False, 'shape': (3,), }",
                    "unsupported dtype '<U2': only little-endian float32"),
        with_header("Structured", "{'descr': [('x', '<f4'), ('y', '<f4')], 'fortran_order': False, 'shape': (3,), }",
                    "unsupported dtype [('x', '<f4'), ('y', '<f4')] (a structured dtype)"),
        with_header("FortranOrder", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                    "Fortran-ordered data (fortran_order True) are not supported"),
        MalformedCase{"TruncatedData", npy_bytes(1, 0, f4_header("(2, 3)"), float_bytes({1, 2, 3, 4, 5})),
                      "truncated data: shape (2, 3) needs 24 bytes of float32 data, the file has 20 after its "
                      "70-byte header"},
        MalformedCase{"PartialValue", npy_bytes(1, 0, f4_header("(2, 3)"), kSixFloats.substr(0, 23)),
                      "truncated data: shape (2, 3) needs 24 bytes of float32 data, the file has 23"},
        MalformedCase{"TrailingData", npy_bytes(1, 0, f4_header("(2, 3)"), kSixFloats + "\n"),
                      "trailing data: shape (2, 3) needs 24 bytes of float32 data, the file has 25"},
        MalformedCase{"ZeroDimensionWithData", npy_bytes(1, 0, f4_header("(2, 0)"), kSixFloats),
                      "trailing data: shape (2, 0) needs 0 bytes of float32 data, the file has 24"},
        MalformedCase{"ScalarWithoutData", npy_bytes(1, 0, f4_header("()"), ""),
                      "truncated data: shape () needs 4 bytes of float32 data, the file has 0"},
        MalformedCase{"ShapeOverflowsBytes", npy_bytes(1, 0, f4_header("(4611686018427387904,)"), kSixFloats),
                      "absurd size: shape (4611686018427387904,) needs more than 2^64 bytes of data"},
        MalformedCase{"ShapeOverflowsValues", npy_bytes(1, 0, f4_header("(4294967296, 4294967296, 2)"), kSixFloats),
                      "absurd size: shape (4294967296, 4294967296, 2) needs more than 2^64 bytes"},
        MalformedCase{"DimensionOverflows64Bits", npy_bytes(1, 0, f4_header("(18446744073709551616,)"), kSixFloats),
                      "absurd size: the integer 18446744073709551616 in the header does not fit size_t"},
        MalformedCase{"HugeShapeInSmallFile", npy_bytes(1, 0, f4_header("(2305843009213693951,)"), kSixFloats),
                      "truncated data: shape (2305843009213693951,) needs 9223372036854775804 bytes of float32 "
                      "data, the file has 24"}),
    [](const ::testing::TestParamInfo<MalformedCase>& info) { return info.param.name; });

TEST_F(NpyFile, WriteIntoMissingFolderIsAnErrorAndCreatesNothing) {
  const fs::path path = dir() / "absent" / "out.npy";
  try {
    write_npy(path, std::vector<std::size_t>{1}, std::vector<float>{1});
    ADD_FAILURE() << "no error";
  } catch (const NpyError& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ": cannot write: No such file or directory");
  }
  EXPECT_TRUE(entries().empty());
}

TEST_F(NpyFile, WriteOverAFolderIsAnErrorAndLeavesNoTemporaryFile) {
  fs::create_directory(dir() / "out.npy");
  // "." is a folder whose rename fails with EBUSY, not EISDIR.
  for (const fs::path& path : {dir() / "out.npy", dir() / "out.npy" / "."}) {
    try {
      write_npy(path, std::vector<std::size_t>{1}, std::vector<float>{1});
      ADD_FAILURE() << "no error for " << path;
    } catch (const NpyError& e) {
      EXPECT_EQ(std::string(e.what()), path.string() + ": cannot write: Is a directory");
    }
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"out.npy"});
  EXPECT_TRUE(fs::is_empty(dir() / "out.npy"));
  EXPECT_TRUE(fs::is_directory(dir() / "out.npy"));
}

// check_npy_destination refuses a path that cannot take a file, as write_npy does, and writes
// nothing. (Permissions are not tried: as root, which CI may be, every folder is writable.)
TEST_F(NpyFile, DestinationCheckRefusesPathsThatCannotTakeAFile) {
  fs::create_directory(dir() / "folder");
  write_file("file.txt", "text");
  const std::pair<fs::path, std::string> refused[] = {
      {dir() / "folder", "Is a directory"},
      {dir() / "folder" / ".", "Is a directory"},
      {dir() / "absent" / "out.npy", "No such file or directory"},
      {dir() / "file.txt" / "out.npy", "Not a directory"},
  };
  for (const auto& [path, fault] : refused) {
    for (const bool write : {false, true}) {
      try {
        if (write)
          write_npy(path, std::vector<std::size_t>{1}, std::vector<float>{1});
        else
          check_npy_destination(path);
        ADD_FAILURE() << "no error for " << path;
      } catch (const NpyError& e) {
        EXPECT_EQ(std::string(e.what()), path.string() + ": cannot write: " + fault);
      }
    }
  }
  EXPECT_NO_THROW(check_npy_destination(dir() / "new.npy"));
  EXPECT_EQ(entries(), (std::vector<std::string>{"file.txt", "folder"}));
  EXPECT_TRUE(fs::is_empty(dir() / "folder"));
}

TEST_F(NpyFile, WriteWithValuesNotMatchingTheShapeIsAnArgumentError) {
  EXPECT_THROW(write_npy(dir() / "a.npy", std::vector<std::size_t>{2, 3}, std::vector<float>(5)),
               std::invalid_argument);
  EXPECT_THROW(write_npy(dir() / "a.npy", std::vector<std::size_t>{}, std::vector<float>{}), std::invalid_argument);
  EXPECT_THROW(write_npy(dir() / "a.npy", std::vector<std::size_t>{std::size_t{1} << 62}, std::vector<float>{}),
               std::invalid_argument);
  EXPECT_TRUE(entries().empty());
}

}  // namespace
}  // namespace attention
