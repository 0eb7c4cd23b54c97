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
class HugePieceCache;
class PieceCache;
class PieceMemoPool;

class UnknownTokenId : public std::out_of_range {
 public:
  UnknownTokenId(Rank id, std::size_t index);
  Rank id() const { return id_; }
  std::size_t index() const { return index_; }

 private:
  Rank id_;
  std::size_t index_;
};

// How a Tokenizer keeps work for later calls.
struct TokenizerOptions {
  static constexpr std::size_t kDefaultPieceCacheBytes = std::size_t{256} << 10;
  // Memory of the tables that remember the ids of pieces (up to 32 bytes) that are no token, the
  // ones BPE must merge, for every later call and thread (pieces of up to 16 bytes only where an
  // encoder holds no piece memo, which remembers those): half for pieces of up to 16 bytes, half
  // for longer ones, each rounded down to a power of two of 64-byte lines, allocated with the
  // Tokenizer, never grown; a new piece replaces an older one. Ids are a function of a piece's
  // bytes alone, so the cache changes no id, only how soon they come. Below 128 bytes (0
  // included) there is no cache.
  std::size_t piece_cache_bytes = kDefaultPieceCacheBytes;
  static constexpr std::size_t kDefaultPieceMemoBytes = std::size_t{2} << 20;
  // Memory of each memo that remembers the ids of the pieces (up to 16 bytes) that one thread met
  // lately, tokens and merged pieces alike, consulted before anything else. A thread that encodes
  // holds one for the call; there are at most as many as the machine has hardware threads, each
  // made on first need and kept, so their memory is at most that many times this,
  // long_piece_memo_bytes and bulk_piece_memo_bytes (each memo's two tables rounded down to a power
  // of two of 64-byte lines). 0: none.
  std::size_t piece_memo_bytes = kDefaultPieceMemoBytes;
  static constexpr std::size_t kDefaultLongPieceMemoBytes = std::size_t{512} << 10;
  // Memory beside each memo's tables for the pieces of more than 16 bytes it met (words of two or
  // three bytes a letter, runs of Chinese or Japanese): their bytes and ids in an arena, forgotten
  // all at once when it is full; a piece whose record would take more than a quarter of it is
  // never kept. Below 4 KiB (0 included): none. Only with piece_memo_bytes.
  std::size_t long_piece_memo_bytes = kDefaultLongPieceMemoBytes;
  static constexpr std::size_t kDefaultHugePieceCacheBytes = std::size_t{8} << 20;
  // Memory of the records of the pieces of 64 KiB or more that the Tokenizer's threads met (a
  // megabyte of one letter, of spaces, of base64 without a separator: single pieces of
  // milliseconds of merging each), their bytes and ids, shared by all threads; made as pieces
  // come, the least lately used forgotten to make room, a piece larger than all of it never kept.
  // 0: none.
  std::size_t huge_piece_cache_bytes = kDefaultHugePieceCacheBytes;
  static constexpr std::size_t kDefaultBulkPieceMemoBytes = std::size_t{16} << 20;
  // Memory beside each memo for text whose pieces are too many and too seldom repeated for it
  // (random base64: about 108,000 distinct merged pieces a megabyte, a fifth of them of more ids
  // than a memo entry holds): an encoder whose memo stops paying turns to this one for the rest of
  // the call and keeps every piece it meets there, so that the next call over such text finds
  // them. Made when a thread first meets such text, then kept with its memo; a new piece replaces
  // an older one. Below 4 KiB (0 included): none. Only with piece_memo_bytes.
  std::size_t bulk_piece_memo_bytes = kDefaultBulkPieceMemoBytes;
};

// A vocabulary with its pre-tokenizer: what tiktoken calls an Encoding. Safe to share between
// threads: the vocabulary is immutable after construction, and its piece cache (TokenizerOptions)
// is safe under concurrent calls.
//
// Input is any byte string. Valid UTF-8 encodes exactly as tiktoken encodes the same text.
// Ill-formed UTF-8 is split as if each bad byte were U+FFFD (a symbol), but the bad bytes
// themselves are what BPE merges, so decode(encode(b)) == b for every byte string b.
class Tokenizer {
 public:
  explicit Tokenizer(Vocabulary vocabulary, TokenizerOptions options = {});
  // The vocabulary of `other` (shared, not copied) with a cache and memos of its own, empty, as
  // `options` say: what a new Tokenizer of that vocabulary would be, without loading it again. A
  // plain copy shares the cache and the memos too.
  Tokenizer(const Tokenizer& other, TokenizerOptions options);

  const Vocabulary& vocabulary() const { return *vocabulary_; }
  const PreTokenizer& pretokenizer() const { return pretokenizer_; }
  // The merge tables of the linear-time long-piece path, built on first need.
  const LongPieceIndex& long_piece_index() const { return *long_pieces_; }
  // The piece cache of TokenizerOptions, or nullptr when it is off.
  PieceCache* piece_cache() const { return piece_cache_.get(); }
  // Memory that the piece cache holds: at most TokenizerOptions::piece_cache_bytes.
  std::size_t piece_cache_bytes() const;
  // The piece memos of TokenizerOptions, or nullptr when they are off.
  PieceMemoPool* piece_memos() const { return piece_memos_.get(); }
  // Memory of the piece memos made so far.
  std::size_t piece_memo_bytes() const;
  // The huge-piece cache of TokenizerOptions, or nullptr when it is off.
  HugePieceCache* huge_piece_cache() const { return huge_pieces_.get(); }
  // Memory that the huge-piece cache's records hold: at most TokenizerOptions::huge_piece_cache_bytes.
  std::size_t huge_piece_cache_bytes() const;

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
  std::shared_ptr<PieceCache> piece_cache_;
  std::shared_ptr<PieceMemoPool> piece_memos_;
  std::shared_ptr<HugePieceCache> huge_pieces_;
};

}  // namespace tokenizer
