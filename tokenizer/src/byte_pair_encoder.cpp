#include "byte_pair_encoder.hpp"

#include <bit>

#include "huge_piece_cache.hpp"
#include "long_piece_encoder.hpp"
#include "piece_cache.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {

BytePairEncoder::BytePairEncoder(const RankTable& ranks, const LongPieceIndex* long_pieces, PieceCache* cache,
                                 PieceMemoPool* memos, HugePieceCache* huge_pieces)
    : ranks_(&ranks),
      long_pieces_(long_pieces),
      memo_lease_(memos ? memos->lease() : PieceMemoPool::Lease()),
      memo_(memo_lease_.memo()),
      longer_(memo_ ? &memo_->longer() : nullptr),
      // A thread that met text its memo could not hold has a bulk memo: one window that lacks is
      // then enough to turn to it (count_memo_miss), for such text (random base64) is likelier to
      // come again than a memo's first window is to lack without it.
      memo_lacked_before_(memo_lease_.has_bulk()),
      // Behind a memo, the pieces looked up whole are the ones this thread has not met, far more
      // of them no token than of a text's pieces: the filter from the first lookup.
      whole_pieces_(ranks, memo_ != nullptr),
      merger_(&best_short_piece_merger()),
      cache_(cache),
      huge_pieces_(huge_pieces) {}
BytePairEncoder::BytePairEncoder(const Tokenizer& tokenizer)
    : BytePairEncoder(tokenizer.vocabulary().ranks(), &tokenizer.long_piece_index(), tokenizer.piece_cache(),
                      tokenizer.piece_memos(), tokenizer.huge_piece_cache()) {}
BytePairEncoder::~BytePairEncoder() = default;

void BytePairEncoder::encode_unremembered(const std::uint8_t* data, std::size_t size, std::vector<Rank>& out) {
  PieceMemo& memo = *memo_;
  count_memo_miss(data, size);  // may put memo_ off for the pieces after this one
  // A whole token first: most first occurrences are, and a token has one id, so it cannot be
  // among the short pieces of many ids in the memo's long table, whose probe is a line of its
  // own (a cache miss in half of a first occurrence's time, before this order; find_many now
  // probes it only for a piece whose marker the short table holds).
  if (const Rank whole = whole_pieces_.find_padded(data, size); whole != kNoRank) {
    out.push_back(whole);
    memo.store(data, size, &whole, 1);
    return;
  }
  if (size <= PieceMemo::kMaxShortPiece) {
    if (const std::uint64_t* words = memo.find_many(data, size)) {
      Rank ids[PieceMemo::kMaxIds];
      out.insert(out.end(), ids, ids + PieceMemo::LongTable::unpack(words, ids));
      return;
    }
  }
  // In the bulk memo's trial (kBulkTrialBytes), asked for there first and stored there once merged,
  // so that the next call over the same text finds it.
  const std::size_t first = out.size();
  BulkPieceMemo* const bulk = bulk_trial_left_ > 0 ? memo_lease_.bulk_if_made() : nullptr;
  if (bulk) {
    --bulk_trial_left_;
    if (bulk->append(data, size, out)) {
      memo.store(data, size, out.data() + first, out.size() - first);
      ++bulk_trial_found_;
      return;
    }
  }
  // Merged without the piece cache: the memo remembers this piece from now on, so the cache
  // could answer only a piece that another thread merged first, and its probe and store would
  // weigh on the first occurrence of every piece.
  static_assert(PieceMemo::kMaxPiece <= kShortPiece);
  encode_short(data, size, out);
  memo.store(data, size, out.data() + first, out.size() - first);
  if (bulk) bulk->store(data, size, out.data() + first, out.size() - first);
}

void BytePairEncoder::encode_pieces(std::string_view text, std::size_t start, const std::size_t* ends, std::size_t n,
                                    std::vector<Rank>& out) {
  const auto* base = reinterpret_cast<const std::uint8_t*>(text.data());
  if (!memo_) {
    // The memo is off for the rest of the call: put off by its trial (the bulk memo's text), or
    // none was free.
    if (BulkPieceMemo* bulk = memo_lease_.memo() ? memo_lease_.bulk() : nullptr) {
      encode_bulk(*bulk, text, start, ends, n, out);
      return;
    }
    for (std::size_t j = 0; j < n; start = ends[j++])
      finish(whole_pieces_.find_padded(base + start, ends[j] - start), base + start, ends[j] - start, out);
    return;
  }
  if (bulk_trial_left_ < 0) [[unlikely]] {
    bulk_trial_left_ = memo_lease_.has_bulk() && text.size() - start >= kMemoWindowBytes ? kBulkTrialPieces : 0;
    if (bulk_trial_left_ > 0) memo_window_bytes_ = kBulkTrialBytes;
  }
  // The memo's hits go to a buffer, each as all the ids its entry has room for, of which only its
  // count are kept (the next hit writes over the rest): no branch on the count, and no check of
  // the vector's capacity a piece. The loop holds only the commonest case, a short piece in the
  // first entry of its line, so that everything it needs stays in registers; the rest is
  // encode_held's. Each piece's key and short-table line are computed once, kMemoAhead pieces
  // before its lookup, where its line is asked for (a longer piece's probe goes unused).
  Rank buffer[kMaxBatch * PieceMemo::kMaxIds];
  Rank* held = buffer;
  const PieceMemo& memo = *memo_;
  // probes[j % kMemoAhead]: piece j's, made when piece j - kMemoAhead was looked up.
  PieceMemo::ShortProbe probes[kMemoAhead];
  static_assert(std::has_single_bit(kMemoAhead));
  for (std::size_t j = 0, at = start; j < n && j < kMemoAhead; at = ends[j++]) probes[j] = memo.probe_short(base + at, ends[j] - at);
  for (std::size_t j = 0; j < n; start = ends[j++]) {
    const PieceMemo::ShortProbe probe = probes[j % kMemoAhead];
    if (j + kMemoAhead < n)
      probes[j % kMemoAhead] = memo.probe_short(base + ends[j + kMemoAhead - 1], ends[j + kMemoAhead] - ends[j + kMemoAhead - 1]);
    const std::size_t size = ends[j] - start;
    if (size <= PieceMemo::kMaxShortPiece) [[likely]] {
      if (const std::uint64_t* words = PieceMemo::find_short_first(probe, size)) [[likely]] {
        held += PieceMemo::ShortTable::unpack(words, held);
        continue;
      }
    }
    held = encode_held(base + start, size, buffer, held, out);
  }
  out.insert(out.end(), buffer, held);
}

void BytePairEncoder::encode_bulk(BulkPieceMemo& bulk, std::string_view text, std::size_t start, const std::size_t* ends,
                                  std::size_t n, std::vector<Rank>& out) {
  // Such text's pieces are new to every cache but the bulk memo's lines in memory: each piece's
  // lines are asked for kBulkAhead pieces before its lookup, and the lookup comes first, tokens
  // included (the memo's line, read first instead, was a wait on memory as often as not: the bulk
  // memo's lines pass through the cache and evict it). As in encode_pieces' memo loop, hits go to a
  // buffer as all the ids a slot has room for, with no branch on their count: a branch the
  // processor mispredicts throws away the lines it was already fetching.
  const auto* base = reinterpret_cast<const std::uint8_t*>(text.data());
  // probes[j % kBulkAhead]: piece j's, made when piece j - kBulkAhead was looked up.
  BulkPieceMemo::Probe probes[kBulkAhead];
  static_assert(std::has_single_bit(kBulkAhead));
  for (std::size_t j = 0, at = start; j < n && j < kBulkAhead; at = ends[j++]) probes[j] = bulk.probe(base + at, ends[j] - at);
  Rank buffer[kMaxBatch * BulkPieceMemo::kMaxIds];
  Rank* held = buffer;
  for (std::size_t j = 0; j < n; start = ends[j++]) {
    const BulkPieceMemo::Probe probe = probes[j % kBulkAhead];
    if (j + kBulkAhead < n)
      probes[j % kBulkAhead] = bulk.probe(base + ends[j + kBulkAhead - 1], ends[j + kBulkAhead] - ends[j + kBulkAhead - 1]);
    const std::size_t size = ends[j] - start;
    if (probe.slots) [[likely]] {
      if (const BulkPieceMemo::Slot* slot = BulkPieceMemo::find(probe, size)) [[likely]] {
        held += BulkPieceMemo::unpack(slot, held);
        continue;
      }
    }
    out.insert(out.end(), buffer, held);
    held = buffer;
    encode_unbulked(bulk, base + start, size, out);
  }
  out.insert(out.end(), buffer, held);
}

void BytePairEncoder::encode_unbulked(BulkPieceMemo& bulk, const std::uint8_t* data, std::size_t size,
                                      std::vector<Rank>& out) {
  if (size > BulkPieceMemo::kMaxPiece && bulk.append(data, size, out)) return;
  const std::size_t first = out.size();
  if (const Rank whole = whole_pieces_.find_padded(data, size); whole != kNoRank) {
    out.push_back(whole);
  } else if (huge_pieces_ && size >= HugePieceCache::kMinPiece) {
    encode_merged(std::string_view(reinterpret_cast<const char*>(data), size), out);  // the huge-piece cache's
    return;
  } else if (size > kShortPiece) {
    encode_long(data, size, out);
  } else {
    encode_short(data, size, out);
  }
  bulk.store(data, size, out.data() + first, out.size() - first);
}

Rank* BytePairEncoder::encode_held(const std::uint8_t* data, std::size_t size, Rank* buffer, Rank* held,
                                   std::vector<Rank>& out) {
  // memo_ is null once a miss earlier in the batch put it off (count_memo_miss); the batch's loop
  // still asks the memo first, and its remaining pieces come here.
  if (PieceMemo* memo = memo_) {
    if (size <= PieceMemo::kMaxShortPiece) {
      if (const std::uint64_t* words = memo->find_short(data, size)) return held + PieceMemo::ShortTable::unpack(words, held);
    } else if (size <= PieceMemo::kMaxPiece) {
      if (const std::uint64_t* words = memo->find_long(data, size)) return held + PieceMemo::LongTable::unpack(words, held);
    }
  }
  out.insert(out.end(), buffer, held);
  if (memo_ && size <= PieceMemo::kMaxPiece)
    encode_unremembered(data, size, out);
  else
    finish(whole_pieces_.find_padded(data, size), data, size, out);
  return buffer;
}

inline bool BytePairEncoder::lookup_cached(std::string_view piece, std::vector<Rank>& out) {
  const PieceCache& cache = *cache_;
  const bool hit = cache.lookup(piece, out);
  if (!cache_trial_.passes(hit)) cache_ = nullptr;
  if (hit || !overflow_ || piece.size() > PieceCache::kMaxShortPiece) return hit;
  const bool overflow_hit = cache.lookup_overflow(piece, out);
  if (!overflow_trial_.passes(overflow_hit)) overflow_ = false;
  return overflow_hit;
}

void BytePairEncoder::encode_merged(std::string_view piece, std::vector<Rank>& out) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(piece.data());
  const std::size_t size = piece.size();
  if (huge_pieces_ && size >= HugePieceCache::kMinPiece) {
    if (huge_pieces_->append(piece, out)) return;
    const std::size_t first = out.size();
    encode_long(data, size, out);
    huge_pieces_->store(piece, std::span<const Rank>(out.data() + first, out.size() - first));
    return;
  }
  LongPieceMemo* const longer = size > PieceMemo::kMaxPiece ? longer_ : nullptr;
  if (longer) {
    const bool hit = longer->append(data, size, out);
    if (!longer_trial_.passes(hit)) longer_ = nullptr;
    if (hit) return;
  }
  const std::size_t first = out.size();
  if (size > kShortPiece) {
    encode_long(data, size, out);
  } else if (!cache_ || !lookup_cached(piece, out)) {
    encode_short(data, size, out);
    if (cache_) cache_->store(piece, out.data() + first, out.size() - first, overflow_);
  }
  if (longer) longer->store(data, size, out.data() + first, out.size() - first);
}

void BytePairEncoder::encode_short(const std::uint8_t* piece, std::size_t size, std::vector<Rank>& out) {
  Rank ids[kMaxShortMerge];
  const std::size_t count =
      size <= merger_->max_size ? merger_->merge(*ranks_, piece, size, ids) : merge_short_scalar(*ranks_, piece, size, ids);
  out.insert(out.end(), ids, ids + count);
}

// Long pieces (a megabyte of one letter is a single piece) go to LongPieceEncoder, linear in
// the piece, once its index is worth building (LongPieceIndex::worth_using) and if the
// vocabulary suits it. Otherwise, the same merges in O(n log n):
// parts form a linked list over byte offsets and candidate pairs wait in a MergeQueue, which
// gives the lowest rank first and, among equal ranks, the leftmost, exactly as the linear scan
// chooses. A queued pair is stale once its pair has changed; a pair
// starting at offset i only ever grows, so its rank can never return to an earlier value and
// `pair_rank_[i] == rank` tells a live entry from a stale one.
void BytePairEncoder::encode_long(const std::uint8_t* data, std::size_t size, std::vector<Rank>& out) {
  if (long_pieces_ && long_pieces_->worth_using(size) && long_pieces_->usable()) {
    if (!long_encoder_) long_encoder_ = std::make_unique<LongPieceEncoder>(*long_pieces_);
    long_encoder_->encode(std::string_view(reinterpret_cast<const char*>(data), size), out);
    return;
  }
  const RankTable& ranks = *ranks_;
  const auto n = static_cast<std::uint32_t>(size);
  next_.resize(size);
  prev_.resize(size);
  pair_rank_.resize(size);
  queue_.clear();
  auto push = [&](Rank rank, std::uint32_t at) { queue_.push(rank, at); };
  for (std::uint32_t i = 0; i < n; ++i) {
    next_[i] = i + 1;
    prev_[i] = i - 1;  // wraps for i == 0; never read there
    pair_rank_[i] = i + 1 < n ? ranks.find(data + i, 2) : kNoRank;
    if (pair_rank_[i] != kNoRank) push(pair_rank_[i], i);
  }
  Rank rank;
  std::uint32_t i;
  while (queue_.pop(rank, i)) {
    if (pair_rank_[i] != rank) continue;
    const std::uint32_t j = next_[i], k = next_[j];  // merge [i, j) and [j, k)
    next_[i] = k;
    if (k < n) prev_[k] = i;
    pair_rank_[j] = kNoRank;
    pair_rank_[i] = k < n ? ranks.find_filtered(data + i, next_[k] - i) : kNoRank;
    if (pair_rank_[i] != kNoRank) push(pair_rank_[i], i);
    if (i > 0) {
      const std::uint32_t h = prev_[i];
      pair_rank_[h] = ranks.find_filtered(data + h, k - h);
      if (pair_rank_[h] != kNoRank) push(pair_rank_[h], h);
    }
  }
  // Every part left is a token: the plain lookup, not the filter made for lookups that miss.
  for (std::uint32_t i = 0; i < n; i = next_[i]) out.push_back(ranks.find(data + i, next_[i] - i));
}

}  // namespace tokenizer
