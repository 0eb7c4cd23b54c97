#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "merge_queue.hpp"
#include "piece_memo.hpp"
#include "short_piece_merger.hpp"
#include "tokenizer/rank.hpp"
#include "tokenizer/rank_table.hpp"
#include "whole_piece_lookup.hpp"

namespace tokenizer {

class HugePieceCache;
class LongPieceIndex;
class LongPieceEncoder;
class PieceCache;
class Tokenizer;

// Encodes one pre-tokenized piece with tiktoken's rule: repeatedly merge the adjacent pair of
// parts whose concatenation has the lowest rank (the leftmost on ties) until no pair is a token.
// Holds scratch space reused across pieces, so it allocates only while a piece is longer than
// any seen before. Not thread-safe: one per thread (the PieceCache it uses may be shared).
class BytePairEncoder {
 public:
  // With a LongPieceIndex, long pieces may take the linear-time path (see encode_long); with a
  // PieceCache, merged short pieces are looked up there first and stored there after merging;
  // with a PieceMemoPool, the encoder holds one of its memos while it lives, if one is free; with
  // a HugePieceCache, pieces of HugePieceCache::kMinPiece bytes or more go there, not to the memo.
  explicit BytePairEncoder(const RankTable& ranks, const LongPieceIndex* long_pieces = nullptr,
                           PieceCache* cache = nullptr, PieceMemoPool* memos = nullptr,
                           HugePieceCache* huge_pieces = nullptr);
  // The tokenizer's rank table, long-piece index, piece cache, memos and huge-piece cache.
  explicit BytePairEncoder(const Tokenizer& tokenizer);
  ~BytePairEncoder();

  // Appends the ranks of `piece` to `out`. Every byte must have a rank of its own.
  // Most pieces of real text are whole tokens (every single byte is one): that path is inline,
  // in the caller's loop, for it cost a call and the save and restore of the registers the
  // merging needs. Always inline, as is WholePieceLookup::find: left to itself, GCC made one or
  // the other a function of its own again in some encoders' loops.
  [[gnu::always_inline]] void encode(std::string_view piece, std::vector<Rank>& out) {
    if (piece.empty()) return;
    const auto* data = reinterpret_cast<const std::uint8_t*>(piece.data());
    finish(whole_pieces_.find(data, piece.size()), data, piece.size(), out);
  }
  // encode(text.substr(start, end - start), out). While 8 bytes of `text` follow the piece's
  // start, its lookups read them with one load (RankTable::padded_head), and a piece of up to 16
  // bytes is looked for in the encoder's PieceMemo first. Returns remembering(), known without a
  // load where the memo had the piece.
  [[gnu::always_inline]] bool encode(std::string_view text, std::size_t start, std::size_t end,
                                     std::vector<Rank>& out) {
    if (start == end) return remembering();
    const auto* data = reinterpret_cast<const std::uint8_t*>(text.data()) + start;
    const std::size_t size = end - start;
    if (text.size() - start < 8) {
      finish(whole_pieces_.find(data, size), data, size, out);
    } else if (memo_ && size <= PieceMemo::kMaxPiece) {
      if (memo_->append(data, size, out)) [[likely]]
        return true;
      encode_unremembered(data, size, out);
    } else {
      finish(whole_pieces_.find_padded(data, size), data, size, out);
    }
    return remembering();
  }

  // encode(text, start, end, out) for the pieces [start, ends[0]), [ends[0], ends[1]), ...,
  // [ends[n - 2], ends[n - 1]) (start < ends[0] < ... < ends[n - 1]), each with 8 readable bytes
  // from its start: ends[n - 1] + 8 <= text.size() is enough. At most kMaxBatch pieces.
  void encode_pieces(std::string_view text, std::size_t start, const std::size_t* ends, std::size_t n,
                     std::vector<Rank>& out);
  static constexpr std::size_t kMaxBatch = 256;

  // Whether pieces still go through the encoder's memo: it holds one and has not put it off for
  // the rest of the call (count_memo_miss).
  bool remembering() const { return memo_ != nullptr; }

  // Pieces up to this many bytes use the quadratic scan (fast for the short pieces of real
  // text); longer ones the merge queue, O(n log n), or the linear-time long-piece encoder.
  static constexpr std::size_t kShortPiece = kMaxShortMerge;

 private:
  // Appends the piece's rank, `whole`, or its merged ranks if it is no token.
  [[gnu::always_inline]] void finish(Rank whole, const std::uint8_t* data, std::size_t size, std::vector<Rank>& out) {
    if (whole != kNoRank) {
      out.push_back(whole);
      return;
    }
    encode_merged(std::string_view(reinterpret_cast<const char*>(data), size), out);
  }
  // encode_pieces' piece that is not in the first entry of its memo line: its ids appended to the
  // buffer's `held` ids if the memo has them, else the buffer's ids and then the piece's appended
  // to `out`. Returns where the buffer's next ids go. Out of line, so that the loop's registers
  // serve its common case.
  [[gnu::noinline]] Rank* encode_held(const std::uint8_t* data, std::size_t size, Rank* buffer, Rank* held,
                                      std::vector<Rank>& out);
  // A piece of up to PieceMemo::kMaxPiece bytes that the memo's first lookup lacks: a whole token,
  // else found by the memo's last lookup (PieceMemo::find_many), else merged (without the piece
  // cache), then remembered. Counts the miss (count_memo_miss).
  void encode_unremembered(const std::uint8_t* data, std::size_t size, std::vector<Rank>& out);
  // The memo pays while the pieces it lacks hold a small share of the text's bytes: each costs a
  // probe, a lookup and a store, and the stores evict from the cache the rank table's lines that
  // merging needs (docs/performance-notes.md). Windows span at least kMemoWindowBytes of text and
  // close on a miss, as WholePieceLookup's do; two windows in a row in which the pieces the memo
  // lacked hold more than 3/8 of the bytes put it off for the rest of the call, and encode_pieces
  // turns to the bulk memo (one window, where the thread has one already). Two, for a fresh
  // memo lacks every piece of a text's first window: English's first window lacks under a third
  // of its bytes, its later ones under a fifth; random base64 lacks two fifths even where the
  // memo holds the windows of the call before, two thirds where it is fresh.
  void count_memo_miss(const std::uint8_t* data, std::size_t size) {
    const auto at = reinterpret_cast<std::uintptr_t>(data);
    // A piece before the window's start belongs to another chunk or text: a new window.
    if (at < memo_window_start_) {
      memo_window_start_ = at;
      memo_missed_bytes_ = 0;
    }
    memo_missed_bytes_ += size;
    const std::size_t window = at + size - memo_window_start_;
    if (window < memo_window_bytes_) return;
    if (memo_window_bytes_ == kBulkTrialBytes) {
      if (memo_missed_bytes_ * 4 > window && bulk_trial_found_ >= kBulkTrialHits) memo_ = nullptr;
      memo_window_bytes_ = kMemoWindowBytes;
      bulk_trial_left_ = 0;
    } else {
      const bool lacking = memo_missed_bytes_ * 8 > window * 3;
      if (lacking && memo_lacked_before_) memo_ = nullptr;
      memo_lacked_before_ = lacking;
    }
    memo_window_start_ = at + size;
    memo_missed_bytes_ = 0;
  }
  static constexpr std::size_t kMemoWindowBytes = std::size_t{64} << 10;
  // The bulk memo's trial, in the first window of a text of a window or more on a thread that has a
  // bulk memo: that window is kBulkTrialBytes, and the first kBulkTrialPieces pieces it merges are
  // asked for in the bulk memo first (and stored there once merged). Where the bulk memo held
  // kBulkTrialHits of them and the memo lacked a quarter of the window's bytes, the text is one met
  // before in the bulk memo (random base64 encoded again, whose first window in the memo merged
  // again every piece the memo cannot hold), and the memo goes off at once. Text the memo holds
  // lacks next to nothing there (English again: its later windows lack under a fifth), and new
  // text is not in the bulk memo.
  static constexpr std::size_t kBulkTrialBytes = std::size_t{4} << 10;
  static constexpr int kBulkTrialPieces = 16;
  static constexpr int kBulkTrialHits = 8;
  // A non-empty piece that is no token: from the cache, or merged.
  void encode_merged(std::string_view piece, std::vector<Rank>& out);
  // encode_pieces once the memo is off, with the leased memo's bulk memo.
  void encode_bulk(BulkPieceMemo& bulk, std::string_view text, std::size_t start, const std::size_t* ends, std::size_t n,
                   std::vector<Rank>& out);
  // encode_bulk's piece that the bulk memo's buckets lack: from its long pieces, else a whole token
  // or merged, then stored there. Out of line, as encode_held is.
  [[gnu::noinline]] void encode_unbulked(BulkPieceMemo& bulk, const std::uint8_t* data, std::size_t size,
                                         std::vector<Rank>& out);
  // How many pieces ahead encode_pieces asks for the memo's lines: a line that a cold text meets
  // first, or that a long text's own pieces pushed out of L2, comes from L3 or memory while the
  // pieces between are looked up (docs/performance-notes.md).
  static constexpr std::size_t kMemoAhead = 16;
  // How many pieces ahead encode_bulk asks for the bulk memo's lines: enough to cover a line's trip
  // from memory with the pieces between, few enough that the lines asked for do not wait for room
  // (docs/performance-notes.md).
  static constexpr std::size_t kBulkAhead = 32;
  // Appends the piece's ids from the cache's routes that are on and returns true, or returns false.
  bool lookup_cached(std::string_view piece, std::vector<Rank>& out);
  void encode_short(const std::uint8_t* piece, std::size_t size, std::vector<Rank>& out);
  void encode_long(const std::uint8_t* piece, std::size_t size, std::vector<Rank>& out);

  const RankTable* ranks_;
  const LongPieceIndex* long_pieces_;
  PieceMemoPool::Lease memo_lease_;
  PieceMemo* memo_ = nullptr;  // memo_lease_.memo() while it pays (count_memo_miss): every piece asks for it
  // The leased memo's pieces of more than PieceMemo::kMaxPiece bytes, asked for every such piece
  // that is no token while at least 1 in 16 of them is found there (longer_trial_).
  LongPieceMemo* longer_ = nullptr;
  // The trial's window (count_memo_miss) starts at this address, at the call's first missed piece
  // or after the last window's end, and reaches to the end of the latest missed piece; that many
  // of its bytes lay in pieces the memo lacked.
  std::uintptr_t memo_window_start_ = UINTPTR_MAX;
  std::size_t memo_missed_bytes_ = 0;
  bool memo_lacked_before_;  // whether the window before this one lacked more than 3/8
  std::size_t memo_window_bytes_ = kMemoWindowBytes;  // kBulkTrialBytes in the bulk memo's trial
  // The trial's pieces still to ask the bulk memo for (-1: not set; encode_pieces sets it at the
  // call's first batch), and those it held.
  int bulk_trial_left_ = -1;
  int bulk_trial_found_ = 0;
  WholePieceLookup whole_pieces_;
  // Merges the pieces up to its max_size bytes; longer short pieces go to merge_short_scalar.
  const ShortPieceMerger* merger_;
  std::unique_ptr<LongPieceEncoder> long_encoder_;  // created for the first long piece it takes
  // Merged pieces are looked up in the cache and stored there while at least 1 in 16 of them is
  // found there, counted over windows of kTrialWindow lookups: text whose words do not recur
  // (random base64) would only pay for the probes and the stores. A window that finds fewer puts
  // the cache off for the rest of the call; counted per encoder, so per call, for a text is no
  // guide to the next one.
  // The short pieces of more ids than the cache's short table holds take its overflow route (a
  // second probe, in the long table, for each short piece the short table lacks, and a store
  // there), on a trial of its own: a tenth of English's merged pieces are found that way, next
  // to none of random base64's, whose many-id pieces never recur.
  static constexpr std::size_t kTrialWindow = 8192;
  template <std::size_t Window>
  class Trial {
   public:
    // Counts a lookup; false when it closes a window of Window lookups in which fewer than 1 in
    // 16 hit.
    bool passes(bool hit) {
      hits_ += hit;
      if (++lookups_ < Window) return true;
      const bool paid = hits_ * 16 >= lookups_;
      lookups_ = 0;
      hits_ = 0;
      return paid;
    }

   private:
    std::size_t lookups_ = 0;
    std::size_t hits_ = 0;
  };
  // The long-piece memo's trial closes its windows sooner: random base64 has thousands of pieces
  // of more than 16 bytes a megabyte, more than the memo holds, so it forgets them before they
  // recur, and storing each cost 2% more instructions (the counts gate) for no hit.
  static constexpr std::size_t kLongTrialWindow = 512;
  Trial<kLongTrialWindow> longer_trial_;
  PieceCache* cache_;
  Trial<kTrialWindow> cache_trial_;
  HugePieceCache* huge_pieces_;
  bool overflow_ = true;
  Trial<kTrialWindow> overflow_trial_;
  // Scratch for the merge-queue path, indexed by byte offset in the piece.
  std::vector<std::uint32_t> next_;
  std::vector<std::uint32_t> prev_;
  std::vector<Rank> pair_rank_;
  MergeQueue queue_;
};

}  // namespace tokenizer
