#include "long_piece_encoder.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace tokenizer {

namespace {

std::string hex_byte(unsigned b) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("0x") + kHex[b >> 4] + kHex[b & 0xF];
}

// A token on its way into the trie. Its first eight bytes are kept in the entry, so that sorting
// the tokens, nearly all that short, does not chase pointers into the rank table.
struct TrieEntry {
  std::uint64_t head;  // bytes 0..7, byte i in bits 8i..8i+7
  const std::uint8_t* bytes;
  std::uint32_t size;
  Rank rank;

  std::uint8_t byte(std::uint32_t i) const { return i < 8 ? static_cast<std::uint8_t>(head >> (8 * i)) : bytes[i]; }
};

// Orders entries[first, last), which share their first `depth` bytes, by what follows them: the
// one that ends there first, then by the next byte. A counting sort for wide ranges, insertion
// sort for the many narrow ones.
void order_by_next_byte(std::vector<TrieEntry>& entries, std::vector<TrieEntry>& buffer, std::uint32_t first,
                        std::uint32_t last, std::uint32_t depth) {
  auto key = [depth](const TrieEntry& e) { return e.size == depth ? 0u : 1u + e.byte(depth); };
  if (last - first < 64) {
    for (std::uint32_t i = first + 1; i < last; ++i) {
      const TrieEntry e = entries[i];
      std::uint32_t j = i;
      for (; j > first && key(entries[j - 1]) > key(e); --j) entries[j] = entries[j - 1];
      entries[j] = e;
    }
    return;
  }
  std::array<std::uint32_t, 258> start{};
  for (std::uint32_t i = first; i < last; ++i) ++start[key(entries[i]) + 1];
  start[0] = first;
  for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
  for (std::uint32_t i = first; i < last; ++i) buffer[start[key(entries[i])]++] = entries[i];
  std::copy(buffer.begin() + first, buffer.begin() + last, entries.begin() + first);
}

}  // namespace

struct LongPieceIndex::Tables {
  struct Split {
    Rank left = kNoRank;  // kNoRank for bytes, unreachable tokens and ranks that are no token
    Rank right = kNoRank;
  };
  struct Match {
    Rank token;  // kNoRank if none
    std::uint32_t length;
  };
  // Maps a split (left, right) to its token. Most lookups while encoding find nothing, so a Bloom
  // filter (two bits in one word per key, 16 bits per key: small enough for the L2 cache) turns
  // nearly all of them away before the table is touched. The table is open addressing with
  // linear probing.
  struct PairSlot {
    std::uint64_t key;  // left << 32 | right
    Rank merged;
  };
  // A byte trie of the reachable tokens, laid out breadth first so that the children of a node
  // are consecutive nodes, in ascending order of their bytes; labels[i] is the byte that leads
  // to node i. Node 0 is the root; its children are the 256 bytes, in order. The nodes two bytes
  // deep are also indexed directly by those two bytes.
  struct TrieNode {
    std::uint32_t first_child = 0;
    std::uint32_t child_count = 0;
    Rank token = kNoRank;  // the reachable token spelled by the path to this node
  };
  static constexpr std::uint64_t kEmptyKey = ~std::uint64_t{0};
  static constexpr std::uint32_t kNoNode = ~std::uint32_t{0};

  // By rank, in separate arrays: the encoder's hot loop touches each at a different moment.
  std::vector<Split> splits;
  std::vector<std::uint64_t> single_bytes;     // bit r: rank r is a single byte
  std::vector<Match> shorter;                  // by rank: the longest reachable proper prefix
  std::vector<std::uint64_t> pair_filter;
  int pair_filter_shift = 64;
  std::vector<PairSlot> pair_slots;
  std::size_t pair_mask = 0;
  std::vector<TrieNode> nodes;
  std::vector<std::uint8_t> labels;
  std::vector<std::uint32_t> two_byte_nodes;  // by first byte | second byte << 8; kNoNode if none
  std::size_t unreachable = 0;
  std::size_t non_monotone = 0;
  std::string refusal;  // empty if usable

  explicit Tables(const RankTable& ranks);

  bool is_byte(Rank r) const { return (single_bytes[r / 64] >> (r % 64) & 1) != 0; }
  bool reachable(Rank r) const { return r < splits.size() && (is_byte(r) || splits[r].left != kNoRank); }

  // A 64-bit mix of a pair (MurmurHash3's finaliser): the filter takes its word from the top
  // bits and its two bits from the lowest twelve, the table its slot from the bits above those.
  static std::uint64_t pair_hash(std::uint64_t key) {
    key ^= key >> 33;
    key *= 0xFF51AFD7ED558CCDull;
    key ^= key >> 33;
    key *= 0xC4CEB9FE1A85EC53ull;
    return key ^ (key >> 33);
  }
  static std::uint64_t filter_bits(std::uint64_t hash) {
    return std::uint64_t{1} << (hash & 63) | std::uint64_t{1} << (hash >> 6 & 63);
  }

  Rank pair_merge(Rank left, Rank right) const {
    const std::uint64_t key = std::uint64_t{left} << 32 | right;
    const std::uint64_t hash = pair_hash(key);
    const std::uint64_t bits = filter_bits(hash);
    if ((pair_filter[hash >> pair_filter_shift] & bits) != bits) return kNoRank;
    for (std::size_t i = hash >> 12 & pair_mask;; i = (i + 1) & pair_mask) {
      const PairSlot& s = pair_slots[i];
      if (s.key == key) return s.merged;
      if (s.key == kEmptyKey) return kNoRank;
    }
  }

  // BPE(bytes(a) + bytes(b)) == [a, b] for reachable a and b of a monotone vocabulary.
  //
  // In a monotone vocabulary BPE merges in non-decreasing rank order: a merge of rank r creates
  // a token of rank r, whose new pairs can only form tokens whose split contains it, of rank
  // above r. So the rank of a token is the time it forms, and until a merge crosses the
  // boundary, the parts on each side evolve as in BPE(bytes(a)) and BPE(bytes(b)). The part just
  // left of the boundary runs up the right edge of a's merge tree (a byte first, a last); the
  // part just right of it up the left edge of b's. A cross merge of x and y into c =
  // pair_merge(x, y) happens iff both are alive at time c: x is destroyed when its parent on the
  // edge forms, which wins a tie with c (it lies to the left); y's parent loses a tie. So the
  // pair is incompatible iff some (x, y) has c < parent(x) and c <= parent(y). Walking back in
  // time from (a, b), always undoing the later formation (b's side first on a tie, as a's side
  // formed first), visits every pair of edge tokens that are alive together.
  bool compatible(Rank a, Rank b) const {
    Rank x = a, y = b;
    Rank x_parent = kNoRank, y_parent = kNoRank;  // kNoRank is above every rank: never destroyed
    for (;;) {
      const Rank merged = pair_merge(x, y);
      if (merged != kNoRank && merged < x_parent && merged <= y_parent) return false;
      const bool x_is_byte = is_byte(x);
      const bool y_is_byte = is_byte(y);
      if (x_is_byte && y_is_byte) return true;
      if (y_is_byte || (!x_is_byte && x > y)) {
        x_parent = x;
        x = splits[x].right;
      } else {
        y_parent = y;
        y = splits[y].left;
      }
    }
  }

  std::uint32_t child(std::uint32_t node, std::uint8_t byte) const {
    const TrieNode& n = nodes[node];
    const std::uint8_t* first = labels.data() + n.first_child;
    const std::uint8_t* last = first + n.child_count;
    const std::uint8_t* it = n.child_count <= 8 ? std::find(first, last, byte) : std::lower_bound(first, last, byte);
    return it != last && *it == byte ? n.first_child + static_cast<std::uint32_t>(it - first) : kNoNode;
  }

  // The longest reachable token that is a prefix of the `size` (>= 1) bytes at `data`.
  Match longest_prefix(const std::uint8_t* data, std::size_t size) const {
    Match longest{nodes[nodes[0].first_child + data[0]].token, 1};
    if (size == 1) return longest;
    std::uint32_t node = two_byte_nodes[data[0] | data[1] << 8];
    for (std::uint32_t depth = 2; node != kNoNode; ++depth) {
      if (nodes[node].token != kNoRank) longest = {nodes[node].token, depth};
      if (depth == size) break;
      node = child(node, data[depth]);
    }
    return longest;
  }

 private:
  void find_splits(const RankTable& ranks);
  bool last_merge(const RankTable& ranks, std::string_view bytes, Split& split);
  void reserve_pairs(std::size_t count);
  void add_pair(Rank left, Rank right, Rank merged);
  void build_trie(const RankTable& ranks);

  // Scratch of last_merge: the ranks of the parts, and of each part with the next.
  std::vector<Rank> scratch_parts_;
  std::vector<Rank> scratch_pairs_;
};

LongPieceIndex::Tables::Tables(const RankTable& ranks) {
  for (unsigned b = 0; b < 256; ++b) {
    if (ranks.byte_rank(static_cast<std::uint8_t>(b)) == kNoRank) {
      refusal = "byte " + hex_byte(b) + " has no rank";
      return;
    }
  }
  find_splits(ranks);
  if (non_monotone != 0) {
    refusal = std::to_string(non_monotone) + " tokens are not monotone (a split part ranks at or above the token)";
    return;
  }
  build_trie(ranks);
}

// Tokens go in order of length: BPE inside a token's bytes forms only shorter tokens, and (see
// the class comment in the header) it joins two parts x and y into a token c only if (x, y) is
// the split of c. So while tiktoken's loop runs on a token's bytes, a pair of parts that is not
// the whole token is a token iff pair_merge knows it, and pair_merge knows every shorter token.
void LongPieceIndex::Tables::find_splits(const RankTable& ranks) {
  splits.resize(ranks.rank_end());
  single_bytes.assign(ranks.rank_end() / 64 + 1, 0);
  reserve_pairs(ranks.size());
  std::vector<std::vector<Rank>> by_length(ranks.max_token_size() + 1);
  for (Rank r = 0; r < ranks.rank_end(); ++r) by_length[ranks.bytes(r).size()].push_back(r);
  for (const Rank r : by_length[1]) single_bytes[r / 64] |= std::uint64_t{1} << (r % 64);
  // Two bytes are a token iff they merge (the only pair is the whole), so the first pairs of the
  // loop are RankTable's two-byte lookups.
  for (std::size_t length = 2; length < by_length.size(); ++length) {
    for (const Rank r : by_length[length]) {
      const std::string_view bytes = ranks.bytes(r);
      Split& split = splits[r];
      if (length == 2) {
        split = {ranks.byte_rank(static_cast<std::uint8_t>(bytes[0])), ranks.byte_rank(static_cast<std::uint8_t>(bytes[1]))};
      } else if (!last_merge(ranks, bytes, split)) {
        ++unreachable;
        continue;
      }
      add_pair(split.left, split.right, r);
      if (split.left >= r || split.right >= r) ++non_monotone;
    }
  }
}

// tiktoken's merge loop on the bytes of a token of three or more bytes, which pair_merge knows
// every shorter token of. True if it ends in the token itself; then `split` gets the parts its
// last merge joined. The pair that spans the whole token always merges, and last.
bool LongPieceIndex::Tables::last_merge(const RankTable& ranks, std::string_view bytes, Split& split) {
  std::vector<Rank>& part = scratch_parts_;
  std::vector<Rank>& pair = scratch_pairs_;
  part.clear();
  pair.clear();
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto byte = static_cast<std::uint8_t>(bytes[i]);
    part.push_back(ranks.byte_rank(byte));
    if (i + 1 < bytes.size()) pair.push_back(ranks.find(reinterpret_cast<const std::uint8_t*>(bytes.data()) + i, 2));
  }
  while (part.size() > 2) {
    const auto best = std::min_element(pair.begin(), pair.end()) - pair.begin();
    if (pair[best] == kNoRank) return false;
    part[best] = pair[best];
    part.erase(part.begin() + best + 1);
    pair.erase(pair.begin() + best);
    if (part.size() == 2) break;
    if (static_cast<std::size_t>(best) + 1 < part.size()) pair[best] = pair_merge(part[best], part[best + 1]);
    if (best > 0) pair[best - 1] = pair_merge(part[best - 1], part[best]);
  }
  split = {part[0], part[1]};
  return true;
}

void LongPieceIndex::Tables::reserve_pairs(std::size_t count) {
  std::size_t filter_words = 1;
  pair_filter_shift = 64;
  while (filter_words * 64 < 16 * count) {
    filter_words *= 2;
    --pair_filter_shift;
  }
  // The filter keeps nearly all misses away from the table, so it can be three quarters full.
  std::size_t capacity = 16;
  while (3 * capacity < 4 * count) capacity *= 2;
  pair_filter.assign(filter_words, 0);
  pair_slots.assign(capacity, PairSlot{kEmptyKey, kNoRank});
  pair_mask = capacity - 1;
}

void LongPieceIndex::Tables::add_pair(Rank left, Rank right, Rank merged) {
  const std::uint64_t key = std::uint64_t{left} << 32 | right;
  const std::uint64_t hash = pair_hash(key);
  pair_filter[hash >> pair_filter_shift] |= filter_bits(hash);
  std::size_t i = hash >> 12 & pair_mask;
  while (pair_slots[i].key != kEmptyKey) i = (i + 1) & pair_mask;
  pair_slots[i] = PairSlot{key, merged};
}

void LongPieceIndex::Tables::build_trie(const RankTable& ranks) {
  std::vector<TrieEntry> entries;
  for (Rank r = 0; r < splits.size(); ++r) {
    if (!reachable(r)) continue;
    const std::string_view bytes = ranks.bytes(r);
    const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
    entries.push_back({RankTable::load_head(data, bytes.size()), data, static_cast<std::uint32_t>(bytes.size()), r});
  }
  shorter.assign(splits.size(), Match{kNoRank, 0});
  std::vector<TrieEntry> buffer(entries.size());
  // Node i stands for the entries [begin[i], end[i]), which share its prefix of depth[i] bytes;
  // `above[i]` is the nearest token on the path to it (excluded). Ordering each node's entries
  // by their next byte sorts them all by the time the trie is complete.
  std::vector<std::uint32_t> begin{0}, end{static_cast<std::uint32_t>(entries.size())}, depth{0};
  std::vector<Match> above{Match{kNoRank, 0}};
  std::size_t most_nodes = 1;  // the root and one node per byte of every token
  for (const TrieEntry& e : entries) most_nodes += e.size;
  for (auto* v : {&begin, &end, &depth}) v->reserve(most_nodes);
  above.reserve(most_nodes);
  nodes.reserve(most_nodes);
  labels.reserve(most_nodes);
  nodes.emplace_back();
  labels.push_back(0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::uint32_t first = begin[i];
    const std::uint32_t last = end[i], d = depth[i];
    order_by_next_byte(entries, buffer, first, last, d);
    Match nearest = above[i];
    if (first < last && entries[first].size == d) {
      nodes[i].token = entries[first].rank;
      shorter[entries[first].rank] = above[i];
      nearest = {entries[first].rank, d};
      ++first;
    }
    nodes[i].first_child = static_cast<std::uint32_t>(nodes.size());
    while (first < last) {
      const std::uint8_t byte = entries[first].byte(d);
      std::uint32_t group_end = first + 1;
      while (group_end < last && entries[group_end].byte(d) == byte) ++group_end;
      nodes.emplace_back();
      labels.push_back(byte);
      begin.push_back(first);
      end.push_back(group_end);
      depth.push_back(d + 1);
      above.push_back(nearest);
      first = group_end;
    }
    nodes[i].child_count = static_cast<std::uint32_t>(nodes.size()) - nodes[i].first_child;
  }
  two_byte_nodes.assign(65536, kNoNode);
  for (std::uint32_t b = 0; b < 256; ++b) {
    const TrieNode& first = nodes[nodes[0].first_child + b];
    for (std::uint32_t c = first.first_child; c < first.first_child + first.child_count; ++c)
      two_byte_nodes[b | std::uint32_t{labels[c]} << 8] = c;
  }
}

LongPieceIndex::LongPieceIndex(const RankTable& ranks) : ranks_(&ranks) {}
LongPieceIndex::~LongPieceIndex() = default;

const LongPieceIndex::Tables& LongPieceIndex::tables() const {
  std::call_once(built_, [this] {
    tables_ = std::make_unique<const Tables>(*ranks_);
    built_flag_.store(true, std::memory_order_release);
  });
  return *tables_;
}

bool LongPieceIndex::usable() const { return tables().refusal.empty(); }
const std::string& LongPieceIndex::refusal() const { return tables().refusal; }
std::size_t LongPieceIndex::non_monotone_tokens() const { return tables().non_monotone; }
std::size_t LongPieceIndex::unreachable_tokens() const { return tables().unreachable; }

bool LongPieceIndex::reachable(Rank token) const { return tables().reachable(token); }

Rank LongPieceIndex::split_left(Rank token) const {
  const Tables& t = tables();
  return token < t.splits.size() ? t.splits[token].left : kNoRank;
}

Rank LongPieceIndex::split_right(Rank token) const {
  const Tables& t = tables();
  return token < t.splits.size() ? t.splits[token].right : kNoRank;
}

Rank LongPieceIndex::pair_merge(Rank left, Rank right) const {
  const Tables& t = tables();
  if (!t.refusal.empty()) throw std::logic_error("LongPieceIndex::pair_merge: " + t.refusal);
  return t.pair_merge(left, right);
}

bool LongPieceIndex::compatible(Rank a, Rank b) const {
  const Tables& t = tables();
  if (!t.refusal.empty()) throw std::logic_error("LongPieceIndex::compatible: " + t.refusal);
  return t.reachable(a) && t.reachable(b) && t.compatible(a, b);
}

bool LongPieceEncoder::compatible(const LongPieceIndex::Tables& tables, Rank a, Rank b) {
  const std::uint64_t pair = std::uint64_t{a} << 32 | b;
  RememberedPair& slot = remembered_[(pair * 0x9E3779B97F4A7C15ull) >> (64 - kRememberedBits)];
  if (slot.pair != pair) slot = {pair, tables.compatible(a, b)};
  return slot.compatible;
}

void LongPieceEncoder::encode(std::string_view piece, std::vector<Rank>& out) {
  const LongPieceIndex::Tables& t = index_->tables();
  if (!t.refusal.empty()) throw std::logic_error("LongPieceEncoder: " + t.refusal);
  const RankTable& ranks = index_->ranks();
  const auto* data = reinterpret_cast<const std::uint8_t*>(piece.data());
  const std::size_t size = piece.size();
  if (size == 0) return;
  // tiktoken takes a piece that is a token as is, reachable or not.
  if (size <= ranks.max_token_size()) {
    if (const Rank whole = ranks.find(data, size); whole != kNoRank) {
      out.push_back(whole);
      return;
    }
  }
  // From here on the piece is no token, so BPE(piece) has two or more tokens, all reachable, and
  // `out` past `base` holds BPE of the bytes before `pos`.
  const std::size_t base = out.size();
  dead_.reset(size + 1);
  if (remembered_.empty()) remembered_.assign(std::size_t{1} << kRememberedBits, {~std::uint64_t{0}, false});
  auto dead = [&](std::size_t p) { return dead_.test(p); };
  std::size_t pos = 0;
  LongPieceIndex::Tables::Match match = t.longest_prefix(data, size);
  for (;;) {
    const std::size_t end = pos + match.length;
    if (!dead(end) && (out.size() == base || compatible(t, out.back(), match.token))) {
      out.push_back(match.token);
      pos = end;
      if (pos == size) return;
      match = t.longest_prefix(data + pos, size - pos);
      continue;
    }
    match = t.shorter[match.token];
    while (match.token == kNoRank) {
      // No token can follow here: pos is no boundary of BPE(piece). Retry the token before it.
      if (out.size() == base) throw std::logic_error("LongPieceEncoder: no compatible tokens spell the piece");
      dead_.set(pos);
      const Rank last = out.back();
      out.pop_back();
      pos -= ranks.bytes(last).size();
      match = t.shorter[last];
    }
  }
}

}  // namespace tokenizer
