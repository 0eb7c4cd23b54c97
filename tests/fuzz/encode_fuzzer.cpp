// Any bytes through every encoder of the registry, with every built-in encoding: the ids agree
// across encoders and decode back to the input; for short inputs they are the oracle's (ICU's
// regex pieces and textbook BPE); special tokens, when allowed, agree across encoders too; and
// encode_batch gives each line what encode_ordinary does.
//
// Control byte: bits 0-1 pick the encoding (modulo their number), bit 2 allows every special
// token, and 0xFF (bits 0-1 then pick o200k_base) repeats the data up to past the parallel
// encoders' threshold, so that chunking and stitching are reached from small inputs. Rarely: a
// repeated input costs a thousand ordinary ones under the sanitizers and coverage tracing.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "builtin_encodings.hpp"
#include "fuzz_support.hpp"
#include "oracle.hpp"
#include "tokenizer/encoder_registry.hpp"
#include "tokenizer/special_tokens.hpp"
#include "tokenizer/tokenizer.hpp"

namespace {

constexpr std::size_t kOracleLimit = 4096;
constexpr std::size_t kRepeatedSize = 160 * 1024;  // past chunked::kParallelThreshold (128 KiB)

struct Encoding {
  tokenizer::Tokenizer tokenizer;
  tokenizer::test::Oracle oracle;
  explicit Encoding(tokenizer::Tokenizer t) : tokenizer(std::move(t)), oracle(tokenizer.vocabulary()) {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const fuzz::SteeredInput input = fuzz::steer(bytes, size);
  const Encoding& e = fuzz::builtin_encoding<Encoding>(input.control & 3);
  const tokenizer::Tokenizer& tok = e.tokenizer;
  const auto agree_and_round_trip = [&](std::string_view text) {
    const std::vector<tokenizer::Rank> ids = tok.encode_ordinary(text, *tokenizer::find_encoder("serial"));
    for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders())
      fuzz::require(tok.encode_ordinary(text, *encoder) == ids, "every encoder gives serial's ids");
    fuzz::require(tok.decode(ids) == text, "decode(encode(b)) == b");
    return ids;
  };
  // A repeated input checks the chunked path alone: the rest it would check as the unrepeated one.
  if (input.control == 0xFF && !input.data.empty()) {
    std::string text(input.data);
    while (text.size() < kRepeatedSize) text += text;
    agree_and_round_trip(text);
    return 0;
  }

  const std::string_view text = input.data;
  const std::vector<tokenizer::Rank> ids = agree_and_round_trip(text);
  if (text.size() <= kOracleLimit) fuzz::require(e.oracle.encode(text) == ids, "the ids are the oracle's");

  if (input.control & 4) {
    const tokenizer::SpecialTokenPolicy all = tokenizer::SpecialTokenPolicy::all();
    const std::vector<tokenizer::Rank> with_specials = tok.encode(text, all, *tokenizer::find_encoder("serial"));
    for (const tokenizer::Encoder* encoder : tokenizer::supported_encoders())
      fuzz::require(tok.encode(text, all, *encoder) == with_specials, "every encoder gives serial's special ids");
    fuzz::require(tok.decode(with_specials) == text, "decode(encode(b, all specials)) == b");
  }

  // Lines as a batch of documents, newlines kept, at most 64 of them.
  std::vector<std::string_view> documents;
  std::string_view rest = text;
  while (!rest.empty() && documents.size() < 64) {
    const std::size_t end = std::min(rest.find('\n'), rest.size() - 1) + 1;
    documents.push_back(rest.substr(0, end));
    rest.remove_prefix(end);
  }
  const std::vector<std::vector<tokenizer::Rank>> batch = tok.encode_batch(documents);
  fuzz::require(batch.size() == documents.size(), "one result per document");
  for (std::size_t d = 0; d < documents.size(); ++d)
    fuzz::require(batch[d] == tok.encode_ordinary(documents[d]), "encode_batch gives each document's ids");
  return 0;
}
