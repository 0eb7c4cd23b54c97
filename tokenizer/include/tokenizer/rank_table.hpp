#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/huge_page_allocator.hpp"
#include "tokenizer/rank.hpp"

namespace tokenizer {

// Maps a token's bytes to its rank, and a rank back to its bytes.
//
// Layout: every token's bytes live back to back in one arena (`bytes_`), addressed by rank
// through `spans_`. Lookups go by size, each size to one structure that holds those tokens:
//   1, 2 bytes:  one array indexed by the bytes (257 KiB) — the initial pairs of every merge;
//   3, 4 bytes:  a small open-addressing table of 8-byte slots holding the whole key, its size
//                and its rank — the bulk of the lookups while merging, in a table an eighth of
//                the main one, so it stays cached far more often;
//   5 or more:   the main open-addressing table of 16-byte slots, each with the key's first 8
//                bytes (zero-padded) and its size, so a probe for a key of up to 8 bytes is
//                settled by two integer compares without touching the arena; beside it, the
//                last 8 bytes of each key of 9 bytes or more, which settle keys of up to 16.
// Both hash tables use linear probing over power-of-two arrays kept at most half full.
// A Bloom filter over the keys of 3 bytes or more, a few bits per key, answers "surely absent"
// for most keys that are not tokens (see find_filtered).
class RankTable {
 public:
  RankTable() = default;

  // Adds a token. Returns false (and adds nothing) if these bytes are already present.
  // The token must not be empty, and `rank` must not be present yet and at most kMaxRank (else
  // std::invalid_argument); ranks need not be contiguous.
  bool insert(std::string_view token, Rank rank);

  // Rank of exactly these bytes, or kNoRank.
  Rank find(const std::uint8_t* data, std::size_t size) const {
    if (size == 0) return kNoRank;
    return find_by_head(data, size, load_head(data, size));
  }
  // find for a non-empty key that may be read 8 bytes at a time: data + 8 must be readable,
  // whatever `size` is. One load and a mask give its head (padded_head) where load_head branches
  // on the size, and the sizes of whole pieces follow no pattern a predictor learns.
  [[gnu::always_inline]] Rank find_padded(const std::uint8_t* data, std::size_t size) const {
    return find_by_head(data, size, padded_head(data, size));
  }
  Rank find(std::string_view token) const {
    return find(reinterpret_cast<const std::uint8_t*>(token.data()), token.size());
  }

  // find for lookups that mostly miss, such as the pairs BPE tries while merging: most keys
  // that are not tokens cost one word of the filter, which stays cached, instead of a probe
  // into tables too large to, and a key longer than every token costs a compare. Lookups that
  // mostly hit pay for both: whole pieces use it only while many miss (WholePieceLookup).
  // The head and the hash are computed once, for the filter and the table behind it. Inlined
  // always: GCC otherwise calls it.
  [[gnu::always_inline]] Rank find_filtered(const std::uint8_t* data, std::size_t size) const {
    if (size == 0) return kNoRank;
    return find_filtered_by_head(data, size, load_head(data, size));
  }
  // find_filtered with find_padded's precondition and head.
  [[gnu::always_inline]] Rank find_filtered_padded(const std::uint8_t* data, std::size_t size) const {
    return find_filtered_by_head(data, size, padded_head(data, size));
  }
  // The lines that find_filtered_padded(data, size) reads first: the key's filter word and its
  // first slot. Both null for a key that reads neither (1 or 2 bytes, longer than every token, or
  // a table with no key of 3 bytes or more). find_padded's precondition.
  struct KeyLines {
    const void* filter_word = nullptr;
    const void* slot = nullptr;
  };
  KeyLines key_lines_padded(const std::uint8_t* data, std::size_t size) const {
    if (size <= 2 || size > max_token_size_ || filter_.empty()) return {};
    const std::uint64_t head = padded_head(data, size);
    const std::uint64_t h = hash(head, data, size);
    const std::uint64_t* filter_word = &filter_[h >> filter_shift_];
    if (size <= 4) return {filter_word, short_slots_.data() + (short_slot(short_key(head, size)) & short_mask_)};
    return {filter_word, slots_.data() + (h & mask_)};
  }
  // key_lines_padded of a key of 3 to 8 bytes, spelled out for code that computes it for many
  // keys at once (the AVX-512 merge's prefetch, tested against it), with head = padded_head:
  //   hash = mix(head + size * kSizeFactor), mix(x) = (x ^ x >> 32) * kMixFactor, then x ^ x >> 29;
  //   filter word: filter + (hash >> filter_shift), 8-byte words;
  //   slot of a key of 3 or 4 bytes: short_slots + ((head | size << 32) * kMixFactor >> 32 & short_mask),
  //   8-byte slots; of 5 to 8 bytes: slots + ((hash & slot_mask) << slot_shift), slots of 2^slot_shift bytes.
  // Null bases where the table has no key of 3 bytes or more.
  static constexpr std::uint64_t kSizeFactor = 0xD6E8FEB86659FD93ull;
  static constexpr std::uint64_t kMixFactor = 0x9E3779B97F4A7C15ull;
  struct ShortKeyLayout {
    const std::uint64_t* filter;
    unsigned filter_shift;
    const std::uint64_t* short_slots;
    std::uint64_t short_mask;
    const void* slots;
    std::uint64_t slot_mask;
    unsigned slot_shift;
    std::size_t max_token_size;
  };
  ShortKeyLayout short_key_layout() const {
    return {filter_.empty() ? nullptr : filter_.data(), filter_shift_, short_slots_.data(), short_mask_,
            slots_.data(), mask_, kSlotShift, max_token_size_};
  }
  // False only for keys of 3 bytes or more that are absent; true for every present key.
  bool might_contain(const std::uint8_t* data, std::size_t size) const {
    if (size < 3) return true;
    if (filter_.empty()) return false;  // no key of 3 bytes or more yet
    return filter_passes(hash(load_head(data, size), data, size));
  }

  // Bytes of `rank`; empty if the rank is not present.
  std::string_view bytes(Rank rank) const {
    if (rank >= spans_.size()) return {};
    const Span& s = spans_[rank];
    return std::string_view(bytes_).substr(s.offset, s.size);
  }
  bool contains(Rank rank) const { return rank < spans_.size() && spans_[rank].size != 0; }

  // Rank of the single byte b, or kNoRank.
  Rank byte_rank(std::uint8_t b) const { return small_ranks_[small_index(b, 1)]; }
  // The ranks of every key of one or two bytes, kNoRank where none, for vector gathers: the key
  // b0 b1 at index b0 | b1 << 8, the key b at kSmallByteIndex + b.
  const Rank* small_ranks() const { return small_ranks_.get(); }
  static constexpr std::uint32_t kSmallByteIndex = 1 << 16;

  std::size_t size() const { return count_; }
  // One past the largest rank present.
  Rank rank_end() const { return static_cast<Rank>(spans_.size()); }
  std::size_t max_token_size() const { return max_token_size_; }

  // Pre-sizes the table for `count` tokens of `total_bytes` bytes together.
  void reserve(std::size_t count, std::size_t total_bytes);

  // The first min(size, 8) bytes as a little-endian integer, zero-padded, read without going
  // past data + size: 4..7 bytes come from two overlapping 4-byte loads whose shared bytes are
  // equal, so OR-ing them is exact; 1..3 bytes from the first, middle and last byte. Every
  // lookup structure here compares keys by this head.
  static std::uint64_t load_head(const std::uint8_t* data, std::size_t size) {
    if (size >= 8) return load64(data);
    if (size >= 4) return load32(data) | std::uint64_t{load32(data + size - 4)} << (8 * (size - 4));
    if (size == 0) return 0;
    return std::uint64_t{data[0]} | std::uint64_t{data[size / 2]} << (8 * (size / 2)) |
           std::uint64_t{data[size - 1]} << (8 * (size - 1));
  }
  // load_head of a non-empty key with 8 readable bytes at `data`: the 8 bytes, less those past
  // the key: kHeadKeep[min(size, 8)] keeps the low min(size, 8) bytes (a compare, a select and a
  // masked load, where the shift's count took five more instructions in every piece's lookup).
  static std::uint64_t padded_head(const std::uint8_t* data, std::size_t size) {
    return load64(data) & kHeadKeep[size < 8 ? size : 8];
  }

 private:
  static constexpr std::uint64_t kHeadKeep[9] = {0,
                                                 0xFF,
                                                 0xFFFF,
                                                 0xFFFFFF,
                                                 0xFFFFFFFF,
                                                 0xFFFFFFFFFF,
                                                 0xFFFFFFFFFFFF,
                                                 0xFFFFFFFFFFFFFF,
                                                 ~std::uint64_t{0}};
  static std::uint64_t load64(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static std::uint32_t load32(const std::uint8_t* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }

  // find and find_filtered of a non-empty key whose head is known.
  [[gnu::always_inline]] Rank find_by_head(const std::uint8_t* data, std::size_t size, std::uint64_t head) const {
    if (size <= 2) return small_ranks_[small_index(head, size)];
    if (size <= 4) return find_short(head, size);
    return find_long(data, size, head, hash(head, data, size));
  }
  [[gnu::always_inline]] Rank find_filtered_by_head(const std::uint8_t* data, std::size_t size,
                                                    std::uint64_t head) const {
    if (size <= 2) return small_ranks_[small_index(head, size)];
    if (size > max_token_size_ || filter_.empty()) return kNoRank;
    const std::uint64_t h = hash(head, data, size);
    if (!filter_passes(h)) return kNoRank;
    return size <= 4 ? find_short(head, size) : find_long(data, size, head, h);
  }

  struct Slot {
    std::uint64_t head;  // first min(size, 8) bytes, little-endian, zero-padded
    std::uint32_t size;
    Rank rank;           // kNoRank marks an empty slot
  };
  static constexpr unsigned kSlotShift = 4;
  static_assert(sizeof(Slot) == std::size_t{1} << kSlotShift);
  struct Span {
    std::uint32_t offset;
    std::uint32_t size;  // 0: rank not present (tokens are never empty)
  };

  // Hashes the head, the size and, for longer tokens, their last 8 bytes: tokens that share
  // both ends and the size but differ inside just probe a little further.
  static std::uint64_t hash(std::uint64_t head, const std::uint8_t* data, std::size_t size) {
    std::uint64_t x = head + size * kSizeFactor;
    if (size > 8) x ^= load64(data + size - 8) * kMixFactor;
    x ^= x >> 32;
    x *= kMixFactor;
    return x ^ (x >> 29);
  }
  // `head` and `h` are load_head's and hash's answers for the key.
  Rank find_long(const std::uint8_t* data, std::size_t size, std::uint64_t head, std::uint64_t h) const {
    if (slots_.empty()) return kNoRank;
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.rank == kNoRank) return kNoRank;
      if (s.head == head && s.size == size && (size <= 8 || long_key_matches(i, data, size))) return s.rank;
    }
  }
  // Whether the key in slot i, of the same head and size (9 bytes or more), is this one: by its
  // last 8 bytes, kept beside the slot in tails_, and for keys over 16 bytes also by the bytes
  // between head and tail, in the arena. A key of up to 16 bytes is thus settled without the
  // arena, whose line was fetched only after the slot's and then its span's.
  bool long_key_matches(std::size_t i, const std::uint8_t* data, std::size_t size) const {
    return tails_[i] == load64(data + size - 8) &&
           (size <= 16 || std::memcmp(bytes_.data() + spans_[slots_[i].rank].offset + 8, data + 8, size - 16) == 0);
  }
  void insert_long(const std::uint8_t* data, std::size_t size, Rank rank);
  void grow();

  // The filter: a key of 3 bytes or more sets three bits, chosen by the low 18 bits of its
  // hash, of the one 64-bit word its top bits select, so a query reads a single word. At
  // kFilterBitsPerKey bits per key (6.4 keys a word on average), about 2-3% of absent keys pass.
  static constexpr std::size_t kFilterBitsPerKey = 10;
  static std::uint64_t filter_bits(std::uint64_t h) {
    return std::uint64_t{1} << (h & 63) | std::uint64_t{1} << (h >> 6 & 63) | std::uint64_t{1} << (h >> 12 & 63);
  }
  // Whether the filter lets through a key of this hash; needs a non-empty filter.
  bool filter_passes(std::uint64_t h) const {
    const std::uint64_t bits = filter_bits(h);
    return (filter_[h >> filter_shift_] & bits) == bits;
  }
  // Adds a key of 3 bytes or more, the last one inserted into the tables (so counted there).
  void add_to_filter(const std::uint8_t* data, std::size_t size);
  void set_filter_bits(const std::uint8_t* data, std::size_t size) {
    const std::uint64_t h = hash(load_head(data, size), data, size);
    filter_[h >> filter_shift_] |= filter_bits(h);
  }
  std::vector<std::uint64_t> filter_;  // a power-of-two number of words, once any key is long enough
  unsigned filter_shift_ = 64;         // 64 - log2(words): the hash's top bits select the word

  std::vector<Slot, HugePageAllocator<Slot>> slots_;  // the main table: keys of 5 bytes or more
  // tails_[i]: the last 8 bytes of slot i's key if it has 9 bytes or more (else unused).
  std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>> tails_;
  std::size_t mask_ = 0;
  std::size_t long_count_ = 0;
  std::size_t count_ = 0;
  std::size_t max_token_size_ = 0;
  std::string bytes_;
  std::vector<Span> spans_;
  // The table of 3- and 4-byte keys; a slot packs
  //   bits 0-31: the key's bytes, little-endian; bits 32-39: its size; bits 40-63: its rank
  // (hence kMaxRank < 2^24), and kShortEmpty marks a free one.
  static constexpr std::uint64_t kShortEmpty = ~std::uint64_t{0};
  static std::uint64_t short_key(std::uint64_t head, std::size_t size) { return head | std::uint64_t{size} << 32; }
  static std::size_t short_slot(std::uint64_t key) {
    return static_cast<std::size_t>((key * kMixFactor) >> 32);
  }
  Rank find_short(std::uint64_t head, std::size_t size) const {
    if (short_slots_.empty()) return kNoRank;
    const std::uint64_t key = short_key(head, size);
    for (std::size_t i = short_slot(key) & short_mask_;; i = (i + 1) & short_mask_) {
      const std::uint64_t e = short_slots_[i];
      if (e == kShortEmpty) return kNoRank;
      if ((e & 0xFF'FFFF'FFFFull) == key) return static_cast<Rank>(e >> 40);
    }
  }
  void insert_short(std::uint64_t head, std::size_t size, Rank rank);
  std::vector<std::uint64_t> short_slots_;
  std::size_t short_mask_ = 0;
  std::size_t short_count_ = 0;
  // Ranks of the 1- and 2-byte keys, indexed by their head: 2 bytes b0 | b1 << 8 below 65,536,
  // then one byte b at 65,536 + b. The two share a table so that the index, not a branch,
  // tells them apart (small_index); allocated whole with the table, 257 KiB. Filled by memset, as
  // kNoRank is every bit set: the fuzzing build traces every compare of a fill loop, which made
  // this fill a large part of the time of fuzzing the vocabulary loader.
  static constexpr std::size_t kSmallKeys = (1 << 16) + 256;
  static_assert(kNoRank == ~Rank{0}, "small_ranks_ is filled with 0xFF bytes");
  static std::size_t small_index(std::uint64_t head, std::size_t size) {
    return static_cast<std::size_t>(head | std::uint64_t{size & 1} << 16);  // kSmallByteIndex for one byte
  }
  static std::unique_ptr<Rank[]> no_small_ranks() {
    std::unique_ptr<Rank[]> ranks(new Rank[kSmallKeys]);
    std::memset(ranks.get(), 0xFF, kSmallKeys * sizeof(Rank));
    return ranks;
  }
  std::unique_ptr<Rank[]> small_ranks_ = no_small_ranks();
};

}  // namespace tokenizer
