// The merge of short pieces compiled for avx512bw (see short_piece_merger.hpp): a piece of up to 32
// bytes has at most 32 parts, so its parts' ranks and its pairs' keys each fit one or two vectors
// of 16 32-bit lanes, lane i for the part that starts at byte i, as merge_short_scalar's arrays are
// laid out. The set-up is a gather of the pairs' ranks, the lowest pair a reduction of their keys,
// the part list a bitmask; only the two lookups of a merge's new pairs are scalar. The merge is flattened: every
// RankTable function it calls is inlined into it, for a copy compiled out of line here, for this
// ISA, could be the one the linker keeps for the whole program (`nm` shows none); for the same
// reason the prefetch's set-up calls no standard-library function (std::min, std::array).
#include <immintrin.h>

#include <cstdint>

#include "short_piece_merger.hpp"

namespace tokenizer::simd::avx512bw {

namespace {

constexpr std::size_t kLanes = 16;
// A pair's key: its rank above the lane of its left part, so that the least key is the leftmost
// lowest pair. Ranks fit 24 bits (kMaxRank), so every key of a token is below kNoPair, and a
// missing rank (kNoRank, every bit set) makes a key of kNoPair or more whatever its lane.
constexpr unsigned kLaneBits = 5;
constexpr std::uint32_t kLaneMask = (1u << kLaneBits) - 1;
constexpr std::uint32_t kNoPair = ~std::uint32_t{0} << kLaneBits;
static_assert(kMaxRank < kNoPair >> kLaneBits && kNoRank == ~Rank{0});

// Lane i of each vector: `value` where bit i of `lanes` (bit 16 + i for the second vector) is set.
template <std::size_t Vectors>
[[gnu::always_inline]] inline void set_lanes(__m512i (&v)[Vectors], std::uint64_t lanes, Rank value) {
  for (std::size_t k = 0; k < Vectors; ++k)
    v[k] = _mm512_mask_set1_epi32(v[k], static_cast<__mmask16>(lanes >> (kLanes * k)), static_cast<int>(value));
}

// short_piece_key_lines (short_piece_merger.hpp) of the piece `bytes`, zero past its `size` bytes
// (2 to 16), eight keys at a time: the keys of one length at offsets 0-7 in one vector of 64-bit
// lanes, at offsets 8-15 in another, as RankTable::ShortKeyLayout spells out. Each vector's eight
// addresses are stored whole, and the count moves on by its keys, so `lines` needs 8 spare places.
[[gnu::always_inline]] inline std::size_t key_lines(const RankTable& ranks, __m128i bytes, std::size_t size,
                                                    KeyLineAddresses& lines) {
  const RankTable::ShortKeyLayout t = ranks.short_key_layout();
  std::size_t longest = size - 1 < kMaxKeyLineBytes ? size - 1 : kMaxKeyLineBytes;
  if (t.max_token_size < longest) longest = t.max_token_size;
  if (!t.filter || longest < 3) return 0;
  // heads[v] lane q: the 8 bytes from offset 8v + q, zeros past the piece: each 128-bit lane
  // holds the piece, and a byte index of 0x80 (offset 16 or more) shuffles in a zero.
  struct HeadBytes {
    std::uint8_t from[2][64];
  };
  static constexpr HeadBytes kHeadBytes = [] {
    HeadBytes h{};
    for (std::size_t v = 0; v < 2; ++v)
      for (std::size_t q = 0; q < 8; ++q)
        for (std::size_t b = 0; b < 8; ++b) {
          const std::size_t at = 8 * v + q + b;
          h.from[v][8 * q + b] = at < 16 ? static_cast<std::uint8_t>(at) : 0x80;
        }
    return h;
  }();
  const __m512i piece = _mm512_broadcast_i32x4(bytes);
  const __m512i heads[2] = {_mm512_shuffle_epi8(piece, _mm512_loadu_si512(kHeadBytes.from[0])),
                            _mm512_shuffle_epi8(piece, _mm512_loadu_si512(kHeadBytes.from[1]))};
  const __m512i mix = _mm512_set1_epi64(static_cast<long long>(RankTable::kMixFactor));
  const __m128i filter_shift = _mm_cvtsi32_si128(static_cast<int>(t.filter_shift));
  const __m512i filter = _mm512_set1_epi64(reinterpret_cast<long long>(t.filter));
  const __m512i short_slots = _mm512_set1_epi64(reinterpret_cast<long long>(t.short_slots));
  const __m512i short_mask = _mm512_set1_epi64(static_cast<long long>(t.short_mask));
  const __m512i slots = _mm512_set1_epi64(reinterpret_cast<long long>(t.slots));
  const __m512i slot_mask = _mm512_set1_epi64(static_cast<long long>(t.slot_mask));
  const __m128i slot_shift = _mm_cvtsi32_si128(static_cast<int>(t.slot_shift));
  std::size_t count = 0;
  for (std::size_t length = 3; length <= longest; ++length) {
    const __m512i keep = _mm512_set1_epi64(static_cast<long long>(~std::uint64_t{0} >> (64 - 8 * length)));
    const __m512i size_term = _mm512_set1_epi64(static_cast<long long>(length * RankTable::kSizeFactor));
    for (std::size_t v = 0; v < 2 && 8 * v + length <= size; ++v) {
      const __m512i head = _mm512_and_si512(heads[v], keep);
      __m512i x = _mm512_add_epi64(head, size_term);
      x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 32)), mix);
      const __m512i hash = _mm512_xor_si512(x, _mm512_srli_epi64(x, 29));
      const __m512i filter_word = _mm512_add_epi64(filter, _mm512_slli_epi64(_mm512_srl_epi64(hash, filter_shift), 3));
      __m512i slot;
      if (length <= 4) {
        const __m512i size_bits = _mm512_set1_epi64(static_cast<long long>(std::uint64_t{length} << 32));
        const __m512i key = _mm512_or_si512(head, size_bits);
        const __m512i index = _mm512_and_si512(_mm512_srli_epi64(_mm512_mullo_epi64(key, mix), 32), short_mask);
        slot = _mm512_add_epi64(short_slots, _mm512_slli_epi64(index, 3));
      } else {
        slot = _mm512_add_epi64(slots, _mm512_sll_epi64(_mm512_and_si512(hash, slot_mask), slot_shift));
      }
      _mm512_storeu_si512(lines.filter_words + count, filter_word);
      _mm512_storeu_si512(lines.slots + count, slot);
      const std::size_t keys = size - length + 1 - 8 * v;
      count += keys < 8 ? keys : 8;
    }
  }
  return count;
}

// Asks for the lines of the lookups a merge of the piece is likely to make (key_lines): a merge's
// rounds wait for one another's lookups, each a filter word and then a slot, cache misses one
// after another where the piece is new; asked for up front, they overlap. Only pieces of one
// vector, and keys of up to kMaxKeyLineBytes: a piece of 16 bytes has 69 such keys (105 of any
// length), most of which random text never looks up.
[[gnu::always_inline]] inline void prefetch_lookups(const RankTable& ranks, __m128i bytes, std::size_t size) {
  KeyLineAddresses lines;
  const std::size_t count = key_lines(ranks, bytes, size, lines);
  for (std::size_t k = 0; k < count; ++k) {
    __builtin_prefetch(reinterpret_cast<const void*>(lines.filter_words[k]));
    __builtin_prefetch(reinterpret_cast<const void*>(lines.slots[k]));
  }
}

// A piece of 2 to 16 * Vectors bytes.
template <std::size_t Vectors>
[[gnu::flatten]] std::size_t merge_vectors(const RankTable& ranks, const std::uint8_t* piece, std::size_t size, Rank* out) {
  constexpr std::size_t kBytes = kLanes * Vectors;
  // Bit i for each byte offset i of the piece.
  const std::uint64_t in_piece = (std::uint64_t{1} << size) - 1;
  // The piece, zero-padded to kBytes + 16 bytes: a key that starts at any offset may be read with
  // one 8-byte load (RankTable::find_filtered_padded), and byte i + 1 is there for every lane i;
  // the masked loads read nothing past the piece.
  __m128i bytes[Vectors + 1];
  alignas(16) std::uint8_t data[kBytes + kLanes];
  for (std::size_t k = 0; k <= Vectors; ++k) {
    bytes[k] = k < Vectors ? _mm_maskz_loadu_epi8(static_cast<__mmask16>(in_piece >> (kLanes * k)), piece + kLanes * k)
                           : _mm_setzero_si128();
    _mm_store_si128(reinterpret_cast<__m128i*>(data + kLanes * k), bytes[k]);
  }
  // part: lane i the rank of the part that starts at byte i, set where a merge made that part: a
  // part no merge made is a single byte, looked up at the end, for a piece seldom keeps one and a
  // gather of every byte's rank cost more. pair: lane i the key of live part i and the next part
  // together, rank << 5 | i (PairKey), whose least is the leftmost lowest pair, or a key of
  // kNoPair or more where that is no token, where part i is the last, or where it is no live part
  // (merged away, or past the piece). The ranks of one byte b sit at kSmallByteIndex + b of the
  // small table, those of two bytes b0 b1 at b0 | b1 << 8; pairs start at offsets 0 to size - 2.
  const Rank* small = ranks.small_ranks();
  const __m512i no_rank = _mm512_set1_epi32(-1);
  const __m512i lane_index = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i part[Vectors], pair[Vectors];
  for (std::size_t k = 0; k < Vectors; ++k) {
    const __m512i first = _mm512_cvtepu8_epi32(bytes[k]);
    const __m512i second = _mm512_cvtepu8_epi32(_mm_alignr_epi8(bytes[k + 1], bytes[k], 1));
    part[k] = _mm512_setzero_si512();
    const __m512i rank = _mm512_mask_i32gather_epi32(no_rank, static_cast<__mmask16>((in_piece >> 1) >> (kLanes * k)),
                                                     _mm512_or_si512(first, _mm512_slli_epi32(second, 8)), small, 4);
    pair[k] = _mm512_or_si512(_mm512_slli_epi32(rank, kLaneBits),
                              _mm512_add_epi32(lane_index, _mm512_set1_epi32(static_cast<int>(kLanes * k))));
  }
  // Bit i set where a live part starts, and bit `size` always: the end of the last part. Part 0
  // never goes, so every part after the first has a live part before it.
  std::uint64_t live = in_piece | std::uint64_t{1} << size;
  if constexpr (Vectors == 1) prefetch_lookups(ranks, bytes[0], size);
  // The pairs are `pair`'s lanes and two pending ones, the keys a round looked up: a round takes
  // the least of the vector's least (reduced while the last round's lookups were on their way)
  // and the pending two, so that the reduction waits on nothing but the vector, and the round's
  // chain on memory is its lookups, a few scalar steps and nothing else. A pending key joins the
  // vector in its lane (its low bits) at the next round; one of every bit set, no pair, names
  // lane 31, none of a piece of 16 bytes, and the last part's of one of 32, which is no pair.
  auto least_of = [&] {
    __m512i lowest_lanes = pair[0];
    for (std::size_t k = 1; k < Vectors; ++k) lowest_lanes = _mm512_min_epu32(lowest_lanes, pair[k]);
    return static_cast<std::uint32_t>(_mm512_reduce_min_epu32(lowest_lanes));
  };
  std::uint32_t least = least_of();
  std::uint32_t right = ~std::uint32_t{0}, left = ~std::uint32_t{0};
  for (;;) {
    std::uint32_t lowest = least < right ? least : right;
    if (left < lowest) lowest = left;
    if (lowest >= kNoPair) break;
    const unsigned best = lowest & kLaneMask;
    // Part best absorbs the part after it, `gone`; `end` is then where best ends.
    const std::uint64_t above_best = ~std::uint64_t{0} << (best + 1);
    const unsigned gone = static_cast<unsigned>(_tzcnt_u64(live & above_best));
    live ^= std::uint64_t{1} << gone;
    const unsigned end = static_cast<unsigned>(_tzcnt_u64(live & above_best));
    const std::uint64_t best_lane = std::uint64_t{1} << best;
    const unsigned before = static_cast<unsigned>(63 - _lzcnt_u64(live & (best_lane - 1)));  // for best > 0
    const std::uint64_t before_lane = best > 0 ? std::uint64_t{1} << before : 0;
    set_lanes(part, best_lane, lowest >> kLaneBits);
    // The pending pairs join the vector; best's, before's and gone's lanes leave it.
    set_lanes(pair, std::uint64_t{1} << (right & kLaneMask), right);
    set_lanes(pair, std::uint64_t{1} << (left & kLaneMask), left);
    set_lanes(pair, best_lane | before_lane | std::uint64_t{1} << gone, ~Rank{0});
    least = least_of();
    right = ~std::uint32_t{0};
    if (end < size) {
      const auto after_end = static_cast<unsigned>(_tzcnt_u64(live & (~std::uint64_t{0} << (end + 1))));
      right = ranks.find_filtered_padded(data + best, after_end - best) << kLaneBits | best;
    }
    left = ~std::uint32_t{0};
    if (best > 0) left = ranks.find_filtered_padded(data + before, end - before) << kLaneBits | before;
  }
  // The live parts' ranks, in order, to the first places of out, which has room for kBytes.
  const std::uint64_t parts = live & in_piece;
  // A single byte: a live part whose next byte starts a part too (bit `size` is live).
  for (std::uint64_t bytes_left = parts & live >> 1; bytes_left != 0; bytes_left &= bytes_left - 1) {
    const auto at = static_cast<unsigned>(_tzcnt_u64(bytes_left));
    set_lanes(part, bytes_left & -bytes_left, ranks.byte_rank(data[at]));
  }
  std::size_t count = 0;
  for (std::size_t k = 0; k < Vectors; ++k) {
    const auto lanes = static_cast<__mmask16>(parts >> (kLanes * k));
    _mm512_storeu_si512(out + count, _mm512_maskz_compress_epi32(lanes, part[k]));
    count += static_cast<std::size_t>(_mm_popcnt_u32(lanes));
  }
  return count;
}

}  // namespace

std::size_t short_piece_key_lines(const RankTable& ranks, const std::uint8_t* piece, std::size_t size,
                                  KeyLineAddresses& lines) {
  return key_lines(ranks, _mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << size) - 1), piece), size, lines);
}

std::size_t merge_short(const RankTable& ranks, const std::uint8_t* piece, std::size_t size, Rank* out) {
  return size <= kLanes ? merge_vectors<1>(ranks, piece, size, out) : merge_vectors<2>(ranks, piece, size, out);
}

}  // namespace tokenizer::simd::avx512bw
