#include "byte_pair_encoder.hpp"

#include <cstring>

#include "long_piece_encoder.hpp"
#include "piece_cache.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {

BytePairEncoder::BytePairEncoder(const RankTable& ranks, const LongPieceIndex* long_pieces, PieceCache* cache,
                                 PieceMemoPool* memos)
    : ranks_(&ranks),
      long_pieces_(long_pieces),
      memo_lease_(memos ? memos->lease() : PieceMemoPool::Lease()),
      memo_(memo_lease_.memo()),
      // Behind a memo, the pieces looked up whole are the ones this thread has not met, far more
      // of them no token than of a text's pieces: the filter from the first lookup.
      whole_pieces_(ranks, memo_ != nullptr),
      cache_(cache) {}
BytePairEncoder::BytePairEncoder(const Tokenizer& tokenizer)
    : BytePairEncoder(tokenizer.vocabulary().ranks(), &tokenizer.long_piece_index(), tokenizer.piece_cache(),
                      tokenizer.piece_memos()) {}
BytePairEncoder::~BytePairEncoder() = default;

void BytePairEncoder::encode_unremembered(const std::uint8_t* data, std::size_t size, std::vector<Rank>& out) {
  PieceMemo& memo = *memo_;
  count_memo_miss(data, size);  // may put memo_ off for the pieces after this one
  // A whole token first: most first occurrences are, and a token has one id, so it cannot be
  // among the short pieces of many ids in the memo's long table, whose probe is a line of its
  // own (a cache miss in half of a first occurrence's time, before this order).
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
  // Merged without the piece cache: the memo remembers this piece from now on, so the cache
  // could answer only a piece that another thread merged first, and its probe and store would
  // weigh on the first occurrence of every piece.
  static_assert(PieceMemo::kMaxPiece <= kShortPiece);
  const std::size_t first = out.size();
  encode_short(data, size, out);
  memo.store(data, size, out.data() + first, out.size() - first);
}

void BytePairEncoder::encode_pieces(std::string_view text, std::size_t start, const std::size_t* ends, std::size_t n,
                                    std::vector<Rank>& out) {
  const auto* base = reinterpret_cast<const std::uint8_t*>(text.data());
  if (!memo_) {
    for (std::size_t j = 0; j < n; start = ends[j++])
      finish(whole_pieces_.find_padded(base + start, ends[j] - start), base + start, ends[j] - start, out);
    return;
  }
  // The memo's hits go to a buffer, each as all the ids its entry has room for, of which only its
  // count are kept (the next hit writes over the rest): no branch on the count, and no check of
  // the vector's capacity a piece. The loop holds only the commonest case, a short piece in the
  // first entry of its line, so that everything it needs stays in registers; the rest is
  // encode_held's.
  Rank buffer[kMaxBatch * PieceMemo::kMaxIds];
  Rank* held = buffer;
  const PieceMemo& memo = *memo_;
  for (std::size_t j = 0; j < n; start = ends[j++]) {
    const std::uint8_t* data = base + start;
    const std::size_t size = ends[j] - start;
    if (size <= PieceMemo::kMaxShortPiece) [[likely]] {
      if (const std::uint64_t* words = memo.find_short_first(data, size)) [[likely]] {
        held += PieceMemo::ShortTable::unpack(words, held);
        continue;
      }
    }
    held = encode_held(data, size, buffer, held, out);
  }
  out.insert(out.end(), buffer, held);
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
  if (size > kShortPiece) {
    encode_long(data, size, out);
    return;
  }
  if (cache_ && lookup_cached(piece, out)) return;
  const std::size_t first = out.size();
  encode_short(data, size, out);
  if (cache_) cache_->store(piece, out.data() + first, out.size() - first, overflow_);
}

namespace {

// The offset and rank of the first lowest of the pairs pair[0 .. Pairs - 1] (Pairs not 0, the
// pairs from size - 1 on kNoRank) or pair[0 .. size - 2] (Pairs 0). Conditional moves, not a
// branch: where the pieces are new words of random letters, which pair is the lowest so far
// follows no pattern a predictor learns.
template <std::size_t Pairs>
[[gnu::always_inline]] inline void lowest_pair(const Rank* pair, std::size_t size, std::size_t& best, Rank& lowest) {
  const std::size_t pairs = Pairs != 0 ? Pairs : size - 1;
  best = 0;
  lowest = pair[0];
#pragma GCC unroll 16
  for (std::size_t i = 1; i < pairs; ++i) {
    const Rank rank = pair[i];
    best = rank < lowest ? i : best;
    lowest = rank < lowest ? rank : lowest;
  }
}

// tiktoken's own loop: each round scans for the lowest-ranked adjacent pair, merges it and
// re-ranks its two neighbouring pairs. O(n^2), all in registers and a cache line or two for the
// short pieces it serves. Parts stay where they started: part i spans [i, next[i]) and a merge
// unlinks the right part instead of shifting the arrays after it (three memmove calls a merge).
// Pairs is 8 or 16 for a piece of at most Pairs + 1 bytes, whose set-up and scans then run a count
// known when compiling, with no loop end for the branch predictor to guess; 0 for a longer one.
template <std::size_t Pairs>
void merge_short(const RankTable& ranks, const std::uint8_t* piece, std::size_t size, std::vector<Rank>& out) {
  static_assert(Pairs + 1 <= BytePairEncoder::kShortPiece);
  constexpr std::size_t kMost = BytePairEncoder::kShortPiece;
  // The piece copied, then 8 zero bytes: every key in it may be read with one load and a mask
  // (find_filtered_padded), where load_head branches on the key's size, which follows no pattern
  // from one merge to the next; and the set-up below may read pairs past the piece's end, up to
  // offset Pairs + 1: within the zeros, for a piece given Pairs has at least Pairs - 6 bytes.
  std::uint8_t data[kMost + 8];
  std::memcpy(data, piece, size);
  std::memset(data + size, 0, 8);
  // For a live part i: part[i] is its rank, prev[i] the previous live part's offset (i > 0), and
  // pair[i] the rank of it and the next part together, kNoRank if that is no token or there is
  // no next part. pair[i] is kNoRank for a merged-away part too, so a scan may run over every
  // offset and still see only live pairs: the first minimum is the leftmost live one. Offsets
  // from size on are set up too where Pairs is not 0, never live.
  std::uint8_t next[kMost];
  std::uint8_t prev[kMost];
  Rank part[kMost];
  Rank pair[kMost];
  static_assert(kMost <= 255, "offsets are bytes");
  const std::size_t offsets = Pairs != 0 ? Pairs + 1 : size;
#pragma GCC unroll 32
  for (std::size_t i = 0; i < offsets; ++i) {
    next[i] = static_cast<std::uint8_t>(i + 1);
    prev[i] = static_cast<std::uint8_t>(i - 1);  // wraps for i == 0; never read there
    part[i] = ranks.byte_rank(data[i]);
    const Rank rank = ranks.find(data + i, 2);
    pair[i] = i + 1 < size ? rank : kNoRank;
  }
  for (;;) {
    std::size_t best;
    Rank lowest;
    lowest_pair<Pairs>(pair, size, best, lowest);
    if (lowest == kNoRank) break;
    // Merge part best with the part after it, [next[best], end).
    const std::size_t end = next[next[best]];
    part[best] = lowest;
    pair[next[best]] = kNoRank;
    next[best] = static_cast<std::uint8_t>(end);
    if (end < size) {
      prev[end] = static_cast<std::uint8_t>(best);
      pair[best] = ranks.find_filtered_padded(data + best, next[end] - best);
    } else {
      pair[best] = kNoRank;
    }
    if (best > 0) pair[prev[best]] = ranks.find_filtered_padded(data + prev[best], end - prev[best]);
  }
  for (std::size_t i = 0; i < size; i = next[i]) out.push_back(part[i]);
}

}  // namespace

void BytePairEncoder::encode_short(const std::uint8_t* piece, std::size_t size, std::vector<Rank>& out) {
  if (size <= 9)
    merge_short<8>(*ranks_, piece, size, out);
  else if (size <= 17)
    merge_short<16>(*ranks_, piece, size, out);
  else
    merge_short<0>(*ranks_, piece, size, out);
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
