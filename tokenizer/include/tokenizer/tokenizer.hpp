#pragma once

#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/encoder_registry.hpp"
#include "tokenizer/pretokenizer.hpp"
#include "tokenizer/rank.hpp"
#include "tokenizer/special_tokens.hpp"
#include "tokenizer/vocabulary.hpp"

namespace tokenizer {

class LongPieceIndex;

class UnknownTokenId : public std::out_of_range {
 public:
  UnknownTokenId(Rank id, std::size_t index);
  Rank id() const { return id_; }
  std::size_t index() const { return index_; }

 private:
  Rank id_;
  std::size_t index_;
};

// A vocabulary with its pre-tokenizer: what tiktoken calls an Encoding. Immutable after
// construction and safe to share between threads.
//
// Input is any byte string. Valid UTF-8 encodes exactly as tiktoken encodes the same text.
// Ill-formed UTF-8 is split as if each bad byte were U+FFFD (a symbol), but the bad bytes
// themselves are what BPE merges, so decode(encode(b)) == b for every byte string b.
class Tokenizer {
 public:
  explicit Tokenizer(Vocabulary vocabulary);

  const Vocabulary& vocabulary() const { return *vocabulary_; }
  const PreTokenizer& pretokenizer() const { return pretokenizer_; }
  // The merge tables of the linear-time long-piece path, built on first need.
  const LongPieceIndex& long_piece_index() const { return *long_pieces_; }

  // Special-token text is ordinary text (tiktoken's encode_ordinary).
  std::vector<Rank> encode_ordinary(std::string_view text, const Encoder& encoder = fastest_encoder()) const;
  // Allowed special tokens become their ids; see SpecialTokenPolicy.
  std::vector<Rank> encode(std::string_view text, const SpecialTokenPolicy& policy,
                           const Encoder& encoder = fastest_encoder()) const;

  // Ordinary encoding of many documents, in parallel over documents on TBB's threads; result i
  // is encode_ordinary(documents[i], encoder).
  std::vector<std::vector<Rank>> encode_batch(std::span<const std::string_view> documents,
                                              const Encoder& encoder = fastest_encoder()) const;

  // Throws UnknownTokenId for an id that is neither an ordinary nor a special token.
  std::string decode(std::span<const Rank> ids) const;

 private:
  // Shared, so that copies and moves keep the rank table where the index points, and copies
  // share one index.
  std::shared_ptr<const Vocabulary> vocabulary_;
  PreTokenizer pretokenizer_;
  std::shared_ptr<const LongPieceIndex> long_pieces_;
};

}  // namespace tokenizer
