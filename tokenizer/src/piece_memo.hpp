#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "bulk_piece_memo.hpp"
#include "long_piece_memo.hpp"
#include "tokenizer/rank.hpp"
#include "tokenizer/rank_table.hpp"

namespace tokenizer {

// A table of PieceMemo: the ids of pieces of up to 8 * KeyWords bytes, 3 * KeyWords at most.
//
// Layout: 64-byte lines of entries of KeyWords key words and KeyWords id words (16 bytes for one
// key word, four to a line; 32 for two, two to a line); a piece's hash picks two lines, and it may
// sit in any entry of its first or, if that was full when it came, of its second. Entries are
// filled, replaced and swapped but never emptied, so a first line with an empty entry rules the
// second out, and a lookup that misses reads one line until its first line fills. (With one line
// a piece, every pass lost the pieces of the lines that more pieces shared than they had entries,
// a fifth of English's: docs/performance-notes.md.) The key words are the piece's first 8 bytes
// (little-endian, zero-padded past its end: RankTable::padded_head) and, for a piece of 9 to 16
// bytes, its last 8 (overlapping the first where it is shorter than 16); the PieceMemo may give a
// shorter piece another second word. The first id word holds
//   bits 0-4: the piece's size (0 marks an empty entry, for pieces are never empty),
//   bits 5-6: how many ids this word holds (1 to 3),
//   bits 7-63: those ids, 19 bits apiece, the first lowest;
// a second holds the ids after those three likewise: their number in bits 0-1 (0 to 3), the ids
// from bit 2. Key words and size tell every piece apart, so a hit is exact. Pieces of more ids
// than an entry holds, or with an id of 2^19 or more, are not kept (every built-in vocabulary's ids
// fit 19 bits).
template <std::size_t KeyWords>
class PieceMemoTable {
 public:
  static constexpr std::size_t kMaxPiece = 8 * KeyWords;
  static constexpr std::size_t kMaxIds = 3 * KeyWords;
  static constexpr unsigned kIdBits = 19;
  static constexpr std::size_t kLineBytes = 64;

  struct Key {
    std::uint64_t words[KeyWords];
  };
  // The layout above; a line is what first_line_of hands to a caller that asks for it ahead.
  struct Entry {
    std::uint64_t key[KeyWords];
    std::uint64_t ids[KeyWords];
  };
  static constexpr std::size_t kWays = kLineBytes / sizeof(Entry);
  static_assert(kLineBytes % sizeof(Entry) == 0 && kWays >= 2);
  struct alignas(kLineBytes) Line {
    Entry entries[kWays];
  };
  static_assert(sizeof(Line) == kLineBytes);

  explicit PieceMemoTable(std::size_t bytes) : mask_(lines_for(bytes) - 1), lines_(new Line[lines_for(bytes)]()) {}

  // The memory of a table made with `bytes`: the largest power of two of lines that fits, at least one.
  static std::size_t memory_for(std::size_t bytes) { return lines_for(bytes) * kLineBytes; }
  std::size_t memory_bytes() const { return (mask_ + 1) * kLineBytes; }

  // The id words of the piece of `size` bytes whose key is `key` (for unpack), or nullptr.
  // A piece found in another entry than the first of its line trades places with it: the pieces
  // met most often settle there, where the first compare finds them, and the search's branches
  // stay predictable (which entry a piece sits in follows no pattern).
  [[gnu::always_inline]] const std::uint64_t* find(const Key& key, std::size_t size) {
    const std::uint64_t h = hash(key, size);
    Entry* line = lines_[first_line(h)].entries;
    if (holds(line[0], key, size)) [[likely]]
      return line[0].ids;
    return find_later(line, h, key, size);
  }
  // Whether the piece's marker (store_marker) is here, where find would look for the piece; it
  // moves no entry.
  bool has_marker(const Key& key, std::size_t size) {
    static_assert(kMarkersFit);
    const std::uint64_t h = hash(key, size);
    return place_of(lines_[first_line(h)].entries, 0, h, key, size | kMarkerBit).line != nullptr;
  }
  // find's first compare alone, in two steps, so that a caller may ask for the line ahead of the
  // compare: the piece's first line, then the id words if the piece sits in that line's first
  // entry, else nullptr (and find may still find it).
  [[gnu::always_inline]] const Line* first_line_of(const Key& key, std::size_t size) const {
    return &lines_[first_line(hash(key, size))];
  }
  [[gnu::always_inline]] static const std::uint64_t* find_first_in(const Line* line, const Key& key, std::size_t size) {
    const Entry& e = line->entries[0];
    return holds(e, key, size) ? e.ids : nullptr;
  }
  // Remembers that the piece (key, size) encodes to `ids`, when they fit an entry: in an empty
  // entry of its first line, else of its second, else in its first line's last.
  // Returns whether it did.
  bool store(const Key& key, std::size_t size, const Rank* ids, std::size_t count) {
    if (count == 0 || count > kMaxIds) return false;
    std::uint64_t words[KeyWords] = {};
    for (std::size_t i = 0; i < count; ++i) {
      if (ids[i] >> kIdBits) return false;
      words[i / 3] |= std::uint64_t{ids[i]} << (kFirstIdBit[i / 3 != 0] + i % 3 * kIdBits);
    }
    words[0] |= size | std::uint64_t{count < 3 ? count : 3} << 5;
    if constexpr (KeyWords == 2) words[1] |= count - (count < 3 ? count : 3);
    put(key, size, words);
    return true;
  }
  // Remembers that the piece (key, size) is kept elsewhere (in PieceMemo's long table): an entry
  // found only by has_marker, in the lines where find looks for the piece, so that asking costs
  // no line that find did not just read.
  void store_marker(const Key& key, std::size_t size) {
    static_assert(kMarkersFit);
    std::uint64_t words[KeyWords] = {size | kMarkerBit};
    put(key, size, words);
  }

  // Writes the kMaxIds ids' places of the id words that find returned to `ids` (those past the
  // piece's count are garbage) and returns the count: no branch on it.
  [[gnu::always_inline]] static std::size_t unpack(const std::uint64_t* words, Rank* ids) {
    constexpr std::uint64_t kIdMask = (std::uint64_t{1} << kIdBits) - 1;
    std::size_t count = 0;
    for (std::size_t w = 0; w < KeyWords; ++w) {
      for (std::size_t i = 0; i < 3; ++i)
        ids[3 * w + i] = static_cast<Rank>(words[w] >> (kFirstIdBit[w != 0] + i * kIdBits) & kIdMask);
      count += w == 0 ? words[0] >> 5 & 3 : words[w] & 3;
    }
    return count;
  }

 private:
  static constexpr std::uint64_t kSizeMask = 31;
  static_assert(kMaxPiece <= kSizeMask);
  // In a marker's size field beside the piece's size: no piece's size, so find never matches a
  // marker, nor has_marker a piece (in a table of pieces of up to 15 bytes: kMarkersFit).
  static constexpr std::uint64_t kMarkerBit = 16;
  static constexpr bool kMarkersFit = kMaxPiece < kMarkerBit;
  static constexpr unsigned kFirstIdBit[2] = {7, 2};  // in the first id word, in a second

  static std::size_t lines_for(std::size_t bytes) {
    std::size_t lines = 1;
    while (lines <= bytes / (2 * kLineBytes)) lines *= 2;
    return lines;
  }
  void put(const Key& key, std::size_t size, const std::uint64_t (&words)[KeyWords]) {
    const std::uint64_t h = hash(key, size);
    Entry* e = empty_entry(lines_[first_line(h)].entries);
    if (!e) e = empty_entry(lines_[second_line(h)].entries);
    if (!e) e = &lines_[first_line(h)].entries[kWays - 1];
    for (std::size_t i = 0; i < KeyWords; ++i) {
      e->key[i] = key.words[i];
      e->ids[i] = words[i];
    }
  }
  // Whether e is the piece's entry (size_field: its size) or its marker's (its size | kMarkerBit).
  [[gnu::always_inline]] static bool holds(const Entry& e, const Key& key, std::size_t size_field) {
    bool same = (e.ids[0] & kSizeMask) == size_field;
    for (std::size_t i = 0; i < KeyWords; ++i) same &= e.key[i] == key.words[i];
    return same;
  }
  static Entry* empty_entry(Entry* line) {
    for (std::size_t w = 0; w < kWays; ++w)
      if ((line[w].ids[0] & kSizeMask) == 0) return &line[w];
    return nullptr;
  }
  // Where the entry of the piece of hash h whose size field is size_field sits among those find
  // reads: its first line from entry `from` on, then, while that line is full, its second. A null
  // line where it is in neither.
  struct Place {
    Entry* line;
    std::size_t way;
  };
  [[gnu::always_inline]] Place place_of(Entry* first, std::size_t from, std::uint64_t h, const Key& key, std::size_t size_field) {
    for (std::size_t w = from; w < kWays; ++w)
      if (holds(first[w], key, size_field)) return {first, w};
    if ((first[kWays - 1].ids[0] & kSizeMask) == 0) return {nullptr, 0};
    Entry* second = lines_[second_line(h)].entries;
    for (std::size_t w = 0; w < kWays; ++w)
      if (holds(second[w], key, size_field)) return {second, w};
    return {nullptr, 0};
  }
  // find past its first compare: a piece found moves to the first entry of its line.
  const std::uint64_t* find_later(Entry* line, std::uint64_t h, const Key& key, std::size_t size) {
    const Place place = place_of(line, 1, h, key, size);
    if (!place.line) return nullptr;
    if (place.way != 0) std::swap(place.line[0], place.line[place.way]);
    return place.line[0].ids;
  }
  [[gnu::always_inline]] static std::uint64_t hash(const Key& key, std::size_t size) {
    std::uint64_t h = key.words[0] ^ size;
    if constexpr (KeyWords == 2) h ^= key.words[1] * 0xC2B2AE3D27D4EB4Full;
    return h * 0x9E3779B97F4A7C15ull;
  }
  // Two lines from disjoint bits of one hash (while a table has at most 2^20 lines, 64 MiB).
  [[gnu::always_inline]] std::size_t first_line(std::uint64_t h) const { return static_cast<std::size_t>(h >> 40 & mask_); }
  [[gnu::always_inline]] std::size_t second_line(std::uint64_t h) const { return static_cast<std::size_t>(h >> 20 & mask_); }

  std::size_t mask_;  // lines - 1
  std::unique_ptr<Line[]> lines_;
};

// The ids of the pieces of up to 16 bytes that one thread met lately, whole tokens and merged
// pieces alike: the first place an encoder looks for a piece. A megabyte of English has about
// 15,000 distinct pieces, all of up to 16 bytes (95% of its pieces have at most 8), which fit here,
// while the rank table spreads its tokens over tens of megabytes and a merged piece costs a miss
// there before the piece cache is even asked (docs/performance-notes.md). Two tables, each given
// half the memory: the short one holds pieces of up to 8 bytes and 3 ids; the long one pieces of
// 9 to 16 bytes and up to 6 ids, and those of up to 8 bytes with 4 to 6 ids (a tenth of English's
// merged pieces), which it keys by their first 8 bytes and a second word of zeros: no piece of 9
// bytes or more has that key, for its size differs. Such a piece also leaves a marker in the short
// table, where find_short has just looked for it, so that the long table's line, a cache miss
// where the piece is new, is read only for the pieces that have one: a marker lost to a newer
// piece costs the piece's ids a merge, never their exactness.
// Not thread-safe: a PieceMemo has one user at a time (PieceMemoPool hands them out).
class PieceMemo {
 public:
  using ShortTable = PieceMemoTable<1>;
  using LongTable = PieceMemoTable<2>;
  static constexpr std::size_t kMaxPiece = LongTable::kMaxPiece;
  static constexpr std::size_t kMaxShortPiece = ShortTable::kMaxPiece;
  static constexpr std::size_t kMaxIds = LongTable::kMaxIds;

  // `bytes` for the two tables, `longer_bytes` for the pieces of more than kMaxPiece bytes (none
  // without).
  explicit PieceMemo(std::size_t bytes, std::size_t longer_bytes = 0) : short_(bytes / 2), long_(bytes / 2), longer_(longer_bytes) {}

  // The memory of a memo made with `bytes` and `longer_bytes`: the tables' at most bytes and at
  // least two lines, beside LongPieceMemo::memory_for(longer_bytes).
  static std::size_t memory_for(std::size_t bytes, std::size_t longer_bytes) {
    return ShortTable::memory_for(bytes / 2) + LongTable::memory_for(bytes / 2) + LongPieceMemo::memory_for(longer_bytes);
  }
  std::size_t memory_bytes() const { return short_.memory_bytes() + long_.memory_bytes() + longer_.memory_bytes(); }

  // The pieces of more than kMaxPiece bytes.
  LongPieceMemo& longer() { return longer_; }

  // The lookups of a piece of `size` bytes at `data`, with 8 bytes readable from data
  // (RankTable::find_padded's precondition): the id words for ShortTable::unpack or
  // LongTable::unpack, or nullptr.
  //   find_short: a piece of up to kMaxShortPiece bytes and 3 ids;
  //   find_long:  a piece of kMaxShortPiece + 1 to kMaxPiece bytes;
  //   find_many:  a piece of up to kMaxShortPiece bytes and 4 to kMaxIds ids.
  [[gnu::always_inline]] const std::uint64_t* find_short(const std::uint8_t* data, std::size_t size) {
    return short_.find({RankTable::padded_head(data, size)}, size);
  }
  // find_short's first compare alone (PieceMemoTable::first_line_of, find_first_in), in two steps:
  // probe_short computes the piece's key and line once and asks for the line; find_short_first,
  // given the probe, compares the line's first entry.
  struct ShortProbe {
    const ShortTable::Line* line;
    std::uint64_t head;
  };
  [[gnu::always_inline]] ShortProbe probe_short(const std::uint8_t* data, std::size_t size) const {
    const std::uint64_t head = RankTable::padded_head(data, size);
    const ShortTable::Line* line = short_.first_line_of({head}, size);
    __builtin_prefetch(line);
    return {line, head};
  }
  [[gnu::always_inline]] static const std::uint64_t* find_short_first(const ShortProbe& probe, std::size_t size) {
    return ShortTable::find_first_in(probe.line, {probe.head}, size);
  }
  [[gnu::always_inline]] const std::uint64_t* find_long(const std::uint8_t* data, std::size_t size) {
    return long_.find(long_key(data, size), size);
  }
  // find_many asks the long table only where the short one holds the piece's marker, which
  // store leaves there beside a piece of many ids: most pieces that reach find_many are new, and
  // the long table's line would be a cache miss for nothing, where the short one's was just read
  // by find_short.
  const std::uint64_t* find_many(const std::uint8_t* data, std::size_t size) {
    const std::uint64_t head = RankTable::padded_head(data, size);
    if (!short_.has_marker({head}, size)) return nullptr;
    return long_.find({head, 0}, size);
  }
  // Remembers the ids of the piece of `size` bytes (1 to kMaxPiece) at `data`, read as by find.
  void store(const std::uint8_t* data, std::size_t size, const Rank* ids, std::size_t count) {
    if (size > kMaxShortPiece)
      long_.store(long_key(data, size), size, ids, count);
    else if (count <= ShortTable::kMaxIds)
      short_.store({RankTable::padded_head(data, size)}, size, ids, count);
    else if (long_.store({RankTable::padded_head(data, size), 0}, size, ids, count))
      short_.store_marker({RankTable::padded_head(data, size)}, size);
  }
  // Appends the ids of the piece of `size` bytes (1 to kMaxPiece) at `data` and returns true, or
  // returns false.
  [[gnu::always_inline]] bool append(const std::uint8_t* data, std::size_t size, std::vector<Rank>& out) {
    Rank ids[kMaxIds];
    std::size_t count;
    if (size <= kMaxShortPiece) {
      const std::uint64_t* words = find_short(data, size);
      if (!words) [[unlikely]]
        return false;
      count = ShortTable::unpack(words, ids);
    } else {
      const std::uint64_t* words = find_long(data, size);
      if (!words) return false;
      count = LongTable::unpack(words, ids);
    }
    out.push_back(ids[0]);
    if (count > 1) [[unlikely]] out.insert(out.end(), ids + 1, ids + count);
    return true;
  }

 private:
  [[gnu::always_inline]] static LongTable::Key long_key(const std::uint8_t* data, std::size_t size) {
    std::uint64_t head, tail;
    std::memcpy(&head, data, 8);
    std::memcpy(&tail, data + size - 8, 8);
    return {head, tail};
  }

  ShortTable short_;
  LongTable long_;
  LongPieceMemo longer_;
};

// The PieceMemos of a Tokenizer, one per thread that encodes at a time, each made by its first
// holder and kept across calls: what a thread learned in one call serves its next ones. A lease
// gives its holder a memo of its own, so memos need no locks; when every memo is leased (more
// threads at once than the pool has memos), a lease holds none and its encoder does without.
// Beside each memo, a BulkPieceMemo, made only when its holder first asks for it.
class PieceMemoPool {
  struct Slot {
    std::atomic<bool> leased{false};
    std::unique_ptr<PieceMemo> memo;
    std::unique_ptr<BulkPieceMemo> bulk;
  };

 public:
  // At most `memos` memos of `bytes` and `longer_bytes` each (PieceMemo's rounding), and as many
  // bulk memos of `bulk_bytes` (none below BulkPieceMemo::kMinBytes); none at all when `bytes` or
  // `memos` is 0.
  PieceMemoPool(std::size_t bytes, std::size_t longer_bytes, std::size_t bulk_bytes, std::size_t memos);

  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept
        : slot_(std::exchange(other.slot_, nullptr)), pool_(std::exchange(other.pool_, nullptr)) {}
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (slot_) slot_->leased.store(false, std::memory_order_release);
    }
    PieceMemo* memo() const { return slot_ ? slot_->memo.get() : nullptr; }
    // The slot's bulk memo, made now if this is its first use; nullptr without a memo or where
    // the pool makes none.
    BulkPieceMemo* bulk() const;
    // bulk() where one was made already, else nullptr: never makes one.
    BulkPieceMemo* bulk_if_made() const { return slot_ ? slot_->bulk.get() : nullptr; }
    bool has_bulk() const { return bulk_if_made() != nullptr; }

   private:
    friend class PieceMemoPool;
    Lease(Slot* slot, PieceMemoPool* pool) : slot_(slot), pool_(pool) {}
    Slot* slot_ = nullptr;
    PieceMemoPool* pool_ = nullptr;
  };
  // A memo no other lease holds, made now if it is the slot's first lease; none if every memo is
  // leased. Each thread starts looking at a slot of its own, so that threads that encode one
  // after another keep finding the memo they filled.
  Lease lease();

  // Memory of the memos and bulk memos made so far: at most memos * (bytes + bulk_bytes), beside
  // the long pieces' longer_bytes each.
  std::size_t memory_bytes() const {
    return made_.load(std::memory_order_relaxed) * PieceMemo::memory_for(bytes_, longer_bytes_) +
           bulk_made_.load(std::memory_order_relaxed) * BulkPieceMemo::memory_for(bulk_bytes_);
  }

 private:
  std::size_t bytes_;
  std::size_t longer_bytes_;
  std::size_t bulk_bytes_;
  std::size_t count_;
  std::unique_ptr<Slot[]> slots_;
  std::atomic<std::size_t> made_{0};
  std::atomic<std::size_t> bulk_made_{0};
};

}  // namespace tokenizer
