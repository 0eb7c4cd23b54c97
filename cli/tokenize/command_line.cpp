#include "command_line.hpp"

#include <optional>
#include <utility>
#include <vector>

#include "cli_support/argument_cursor.hpp"
#include "cli_support/listing.hpp"
#include "tokenizer/vocabulary.hpp"

namespace tokenizer::cli {

namespace {

using cli_support::ArgumentCursor;
using cli_support::quoted;

std::string joined(std::span<const std::string> names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string registered_encoder_names() {
  std::vector<std::string> names;
  for (const Encoder& e : all_encoders()) names.emplace_back(e.name);
  return joined(names);
}

const Encoder* resolve_encoder(std::string_view name) {
  const Encoder* encoder = find_encoder(name);
  if (!encoder) throw UsageError("unknown encoder " + quoted(name) + " (registered: " + registered_encoder_names() + ")");
  if (!encoder->is_supported()) throw UsageError("encoder " + quoted(name) + " is not supported on this CPU");
  return encoder;
}

std::string validated_encoding(std::string_view name) {
  const std::vector<std::string> known = Vocabulary::builtin_names();
  for (const std::string& k : known)
    if (k == name) return k;
  throw UsageError("unknown encoding " + quoted(name) + " (built in: " + joined(known) + ")");
}

IdFormat validated_format(std::string_view name) {
  if (const std::optional<IdFormat> format = parse_id_format(name)) return *format;
  throw UsageError("unknown format " + quoted(name) + " (expected text, u32 or count)");
}

}  // namespace

CommandLine parse_command_line(std::span<const std::string_view> args) {
  CommandLine command;
  std::optional<std::string_view> encoding, encoder, input;
  bool options_ended = false;
  ArgumentCursor cursor(args);
  while (!cursor.done()) {
    const std::string_view arg = cursor.advance(options_ended);
    const bool is_option = !options_ended && arg.size() > 1 && arg.starts_with("-");
    if (!is_option) {
      if (input) throw UsageError("two input files given: " + quoted(*input) + " and " + quoted(arg));
      if (arg.empty()) throw UsageError("an empty input file name (use - for standard input)");
      input = arg;
    } else if (arg == "--") {
      cursor.expect_no_value(arg);
      options_ended = true;
    } else if (arg == "--help" || arg == "-h") {
      cursor.expect_no_value(arg);
      command.help = true;
      return command;
    } else if (arg == "--list") {
      cursor.expect_no_value(arg);
      command.list = true;
      return command;
    } else if (arg == "--encoding") {
      encoding = cursor.value(arg);
    } else if (arg == "--vocab") {
      command.vocab_file = cursor.value(arg);
      if (command.vocab_file.empty()) throw UsageError("option --vocab needs a non-empty file name");
    } else if (arg == "--encoder") {
      encoder = cursor.value(arg);
    } else if (arg == "--format") {
      command.format = validated_format(cursor.value(arg));
    } else if (arg == "--allow-special") {
      cursor.expect_no_value(arg);
      command.allow_special = true;
    } else if (arg == "--decode") {
      cursor.expect_no_value(arg);
      command.decode = true;
    } else {
      throw UsageError("unknown option " + quoted(arg) + " (see --help)");
    }
  }
  if (encoding && !command.vocab_file.empty()) throw UsageError("give either --encoding or --vocab, not both");
  if (encoding) command.encoding = validated_encoding(*encoding);
  command.encoder = encoder ? resolve_encoder(*encoder) : &fastest_encoder();
  if (command.decode && command.format == IdFormat::count)
    throw UsageError("--format count cannot be decoded (it holds no ids)");
  if (input) command.input = *input;
  return command;
}

std::string encoder_list_text() {
  std::vector<cli_support::ListedEntry> entries;
  for (const Encoder& e : all_encoders())
    entries.push_back({e.name, e.description, e.name == fastest_encoder().name, e.is_supported()});
  return cli_support::listing_text(entries, " (not supported on this CPU)");
}

std::string usage_text() {
  std::string encoders;
  for (const Encoder& e : all_encoders())
    encoders += "                      " + std::string(e.name) + (e.is_supported() ? "" : " (not supported on this CPU)") + ": " +
                std::string(e.description) + "\n";
  return "Usage: tokenize [--encoding NAME | --vocab FILE] [--encoder NAME] [--allow-special]\n"
         "                [--format text|u32|count] [--decode] [FILE|-]\n"
         "       tokenize --list\n"
         "\n"
         "Encodes FILE (or standard input when FILE is '-' or absent) into token ids, exactly as\n"
         "tiktoken does, and writes them to standard output. With --decode, reads token ids and\n"
         "writes the bytes they stand for.\n"
         "\n"
         "Options (an option's value may also follow '=', as in --format=u32; '--' ends options):\n"
         "  --encoding NAME   built-in encoding: " +
         joined(Vocabulary::builtin_names()) + " (default: " + std::string(kDefaultEncoding) +
         ")\n"
         "  --vocab FILE      a .tiktoken file; its spec (pattern, special tokens) is read from the\n"
         "                    .json file of the same name beside it. Not together with --encoding.\n"
         "  --encoder NAME    how ordinary text is encoded; every encoder gives the same ids\n"
         "                    (default: " +
         std::string(fastest_encoder().name) +
         ", the fastest supported here). Encoders:\n" + encoders +
         "  --allow-special   special-token text (such as <|endoftext|>) becomes the special\n"
         "                    token's id; without it, such text is encoded as ordinary text.\n"
         "  --format FORMAT   how ids are written, or read with --decode (default: text):\n"
         "                      text   decimal ids separated by single spaces, then a newline;\n"
         "                             --decode accepts any whitespace between ids\n"
         "                      u32    one little-endian unsigned 32-bit integer per id, no header\n"
         "                      count  the number of tokens and a newline (not with --decode)\n"
         "  --decode          read ids (in --format text or u32) and write the decoded bytes\n"
         "                    exactly; special-token ids decode to their text.\n"
         "  --list            print the encoders, one a line, name first, and exit\n"
         "  -h, --help        print this text and exit\n"
         "\n"
         "Input is read as raw bytes and need not be valid UTF-8: for splitting into pieces, each\n"
         "byte of an ill-formed sequence counts as one U+FFFD-class symbol, but the raw bytes\n"
         "themselves are encoded, so decoding the ids gives back the input byte for byte.\n"
         "\n"
         "Environment:\n"
         "  TOKENIZER_DATA_DIR  folder holding vocab/NAME.tiktoken (and NAME.json) for the\n"
         "                      built-in encodings (default: the source tree's data folder,\n"
         "                      " TOKBENCH_DATA_DIR "; now: " +
         Vocabulary::data_dir().string() +
         ")\n"
         "\n"
         "Exit status: 0 on success, 1 on a runtime error (unreadable file, bad vocabulary,\n"
         "unknown or malformed token id), 2 on a usage error (bad arguments).\n";
}

}  // namespace tokenizer::cli
