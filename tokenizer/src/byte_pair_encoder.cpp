#include "tokenizer/byte_pair_encoder.hpp"

#include <algorithm>

#include "long_piece_encoder.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer {

BytePairEncoder::BytePairEncoder(const RankTable& ranks, const LongPieceIndex* long_pieces)
    : ranks_(&ranks), long_pieces_(long_pieces) {}
BytePairEncoder::BytePairEncoder(const Tokenizer& tokenizer)
    : BytePairEncoder(tokenizer.vocabulary().ranks(), &tokenizer.long_piece_index()) {}
BytePairEncoder::~BytePairEncoder() = default;

void BytePairEncoder::encode(std::string_view piece, std::vector<Rank>& out) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(piece.data());
  const std::size_t size = piece.size();
  if (size == 0) return;
  // Most pieces of real text are whole tokens (every single byte is one).
  if (size <= ranks_->max_token_size()) {
    if (const Rank whole = ranks_->find(data, size); whole != kNoRank) {
      out.push_back(whole);
      return;
    }
  }
  if (size > kShortPiece) {
    encode_long(data, size, out);
    return;
  }
  if (cache_.lookup(piece, out)) return;
  const std::size_t first = out.size();
  encode_short(data, size, out);
  if (++merged_pieces_ > kCacheAfter) cache_.store(piece, out.data() + first, out.size() - first);
}

// tiktoken's own loop: parts live in a small array; each round scans for the lowest-ranked
// adjacent pair, merges it and re-ranks its two neighbouring pairs. O(n^2), all in registers
// and one cache line or two for the short pieces it serves.
void BytePairEncoder::encode_short(const std::uint8_t* data, std::size_t size, std::vector<Rank>& out) {
  const RankTable& ranks = *ranks_;
  const std::size_t max_token = ranks.max_token_size();
  // Part i spans [start[i], start[i+1]) and has rank part[i]; pair[i] is the rank of parts i
  // and i+1 together (kNoRank if that is no token). start[parts] == size.
  std::uint32_t start[kShortPiece + 1];
  Rank part[kShortPiece];
  Rank pair[kShortPiece];
  std::size_t parts = size;
  auto rank_of = [&](std::uint32_t begin, std::uint32_t end) {
    return end - begin <= max_token ? ranks.find_filtered(data + begin, end - begin) : kNoRank;
  };
  for (std::size_t i = 0; i < size; ++i) {
    start[i] = static_cast<std::uint32_t>(i);
    part[i] = ranks.byte_rank(data[i]);
  }
  start[size] = static_cast<std::uint32_t>(size);
  for (std::size_t i = 0; i + 1 < size; ++i) pair[i] = ranks.find(data + i, 2);
  while (parts > 1) {
    std::size_t best = 0;
    for (std::size_t i = 1; i + 1 < parts; ++i)
      if (pair[i] < pair[best]) best = i;
    if (pair[best] == kNoRank) break;
    // Merge parts best and best+1 into part best.
    part[best] = pair[best];
    std::copy(start + best + 2, start + parts + 1, start + best + 1);
    std::copy(part + best + 2, part + parts, part + best + 1);
    if (best + 2 < parts) std::copy(pair + best + 2, pair + parts - 1, pair + best + 1);
    --parts;
    if (best + 1 < parts) pair[best] = rank_of(start[best], start[best + 2]);
    if (best > 0) pair[best - 1] = rank_of(start[best - 1], start[best + 1]);
  }
  out.insert(out.end(), part, part + parts);
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
  const std::size_t max_token = ranks.max_token_size();
  const auto n = static_cast<std::uint32_t>(size);
  next_.resize(size);
  prev_.resize(size);
  pair_rank_.resize(size);
  queue_.clear();
  auto rank_of = [&](std::uint32_t begin, std::uint32_t end) {
    return end - begin <= max_token ? ranks.find_filtered(data + begin, end - begin) : kNoRank;
  };
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
    pair_rank_[i] = k < n ? rank_of(i, next_[k]) : kNoRank;
    if (pair_rank_[i] != kNoRank) push(pair_rank_[i], i);
    if (i > 0) {
      const std::uint32_t h = prev_[i];
      pair_rank_[h] = rank_of(h, k);
      if (pair_rank_[h] != kNoRank) push(pair_rank_[h], h);
    }
  }
  // Every part left is a token: the plain lookup, not the filter made for lookups that miss.
  for (std::uint32_t i = 0; i < n; i = next_[i]) out.push_back(ranks.find(data + i, next_[i] - i));
}

}  // namespace tokenizer
