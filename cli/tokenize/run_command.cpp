#include "run_command.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "binary_io.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer::cli {

namespace {

Tokenizer load_tokenizer(const CommandLine& command) {
  return Tokenizer(command.vocab_file.empty() ? Vocabulary::builtin(command.encoding)
                                              : Vocabulary::load(command.vocab_file));
}

void encode(const CommandLine& command, const Tokenizer& tokenizer) {
  // The input stays the one buffer it was read into; the ids are the only other large object.
  const ByteBuffer input = read_input(command.input);
  const std::string_view text = input.view();
  const std::vector<Rank> ids = command.allow_special
                                    ? tokenizer.encode(text, SpecialTokenPolicy::all(), *command.encoder)
                                    : tokenizer.encode_ordinary(text, *command.encoder);
  write_ids(ids, command.format, stdout);
}

void decode(const CommandLine& command, const Tokenizer& tokenizer) {
  const std::vector<Rank> ids = read_ids(read_input(command.input).view(), command.format);
  // Decoded in full before anything is written, so an unknown id leaves standard output empty.
  write_bytes(stdout, tokenizer.decode(ids));
}

}  // namespace

void run_command(const CommandLine& command) {
  if (command.help) {
    write_bytes(stdout, usage_text());
  } else if (command.list) {
    write_bytes(stdout, encoder_list_text());
  } else {
    const Tokenizer tokenizer = load_tokenizer(command);
    if (command.decode) decode(command, tokenizer);
    else encode(command, tokenizer);
  }
  finish_output(stdout);
}

}  // namespace tokenizer::cli
