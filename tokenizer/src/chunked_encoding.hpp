#pragma once

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <string_view>
#include <vector>

#include "byte_pair_encoder.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokenizer::chunked {

// Inputs below this many bytes are encoded inline: threads would cost more than they save.
inline constexpr std::size_t kParallelThreshold = 128 * 1024;
inline constexpr std::size_t kMinChunk = 64 * 1024;
// How many leading piece starts of its chain a chunk publishes for its left neighbour to meet.
inline constexpr std::size_t kSyncPieces = 64;

// Where a chain stops (see ScalarChain). A chain asks at(start) before each piece: a start below
// the limit gets its no from one compare, and `reached` answers the others and sets the next
// limit. This one never stops.
//
// A chain takes its stop by this base class, not as a template parameter, so that each chain is
// one function whether it runs to the end (serial) or stops at a chunk's end (parallel), and
// the compiler lays out their per-piece loop once, alike. As a template, the parallel chunk's
// copy made its own inlining choices and ran measurably more instructions than serial's.
class ChainStop {
 public:
  ChainStop() = default;
  ChainStop(const ChainStop&) = delete;
  ChainStop& operator=(const ChainStop&) = delete;
  virtual ~ChainStop() = default;

  bool at(std::size_t start) { return start >= limit_ && reached(start); }
  // Whether at() answers false for every start before `end`: a batch of pieces that all start
  // before it may be encoded without asking piece by piece.
  bool clear_before(std::size_t end) const { return end <= limit_; }
  // Where the chain ends at the latest, for all it knows now: the text's end, or a later chunk's
  // start, which the chain may pass only a little (while it looks for the later chunk's chain).
  std::size_t end_within(std::size_t text_size) const { return std::min(limit_, text_size); }

 protected:
  std::size_t limit_ = std::numeric_limits<std::size_t>::max();

 private:
  virtual bool reached(std::size_t) { return false; }
};

// A Chain encodes the pieces of a chain (see PreTokenizer::scan_from) starting at `from`:
//   std::size_t encode(text, from, out, bpe, stop) const
// asks stop.at(start) before each piece, encodes the piece into `out` unless it answered true,
// and returns where it stopped. This is the scalar one. Once the encoder's memo is off (text it
// cannot hold, such as random base64), the pieces go to the encoder in batches, as the vector
// scanner hands them over, so that it can ask for their lines in its bulk memo ahead.
struct ScalarChain {
  const PreTokenizer& pretokenizer;

  std::size_t encode(std::string_view text, std::size_t from, std::vector<Rank>& out, BytePairEncoder& bpe,
                     ChainStop& stop) const {
    std::size_t from_held = from;  // where the pieces to hand over in batches start
    // The regex engine scans only from the text's start: under a regex pattern, piece by piece.
    const bool resumable = pretokenizer.kind() != PatternKind::regex;
    if (bpe.remembering() || !resumable) {
      bool memo_went_off = false;
      // Inlined always into the scanning loop of each pattern kind: GCC otherwise calls it for
      // every piece.
      const std::size_t stopped =
          pretokenizer.scan_from(text, from, [&](std::size_t start, std::size_t end) __attribute__((always_inline)) {
            if (stop.at(start)) return false;
            if (bpe.encode(text, start, end, out) || !resumable) [[likely]]
              return true;
            memo_went_off = true;
            from_held = end;
            return false;
          });
      if (!memo_went_off) return stopped;
    }
    std::size_t ends[BytePairEncoder::kMaxBatch];
    std::size_t held = 0;  // pieces in ends, from held_start on
    std::size_t held_start = 0;
    const auto encode_held = [&] {
      if (held > 0) bpe.encode_pieces(text, held_start, ends, held, out);
      held = 0;
    };
    const std::size_t stopped =
        pretokenizer.scan_from(text, from_held, [&](std::size_t start, std::size_t end) __attribute__((always_inline)) {
          // Held only where the stop cannot answer true (a stop may count the ids so far, which must
          // then be all there) and encode_pieces may read 8 bytes from the piece's start.
          if (end + 8 <= text.size() && stop.clear_before(end)) [[likely]] {
            if (held == 0) held_start = start;
            ends[held++] = end;
            if (held == BytePairEncoder::kMaxBatch) encode_held();
            return true;
          }
          encode_held();
          if (stop.at(start)) return false;
          bpe.encode(text, start, end, out);
          return true;
        });
    encode_held();
    return stopped;
  }
};

// First byte at or after `pos` that starts a code point.
inline std::size_t code_point_start(std::string_view text, std::size_t pos) {
  while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
  return pos;
}

// First byte at or after `pos` that starts a line, or else a code point, so that a chunk's
// guessed chain start is likely to be a real piece boundary (correctness does not depend on it).
inline std::size_t chunk_start_near(std::string_view text, std::size_t pos) {
  const std::size_t newline = text.substr(pos, 4096).find('\n');
  return newline != std::string_view::npos ? pos + newline + 1 : code_point_start(text, pos);
}

inline bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

// Whether the 8 bytes of x are all ASCII digits: every high nibble 3 and every low one at most
// 9 (adding 6 carries a low nibble of 10 or more into its high one; 15 + 6 stays within the byte).
inline bool all_ascii_digits(std::uint64_t x) {
  constexpr std::uint64_t kHigh = 0xF0F0F0F0F0F0F0F0, kThrees = 0x3030303030303030, kSixes = 0x0606060606060606;
  return (x & kHigh) == kThrees && (((x & ~kHigh) + kSixes) & kHigh) == 0;
}

// Moves chunk starts (ascending, the first at 0) that fall inside a run of ASCII digits onto
// a piece start of the run. cl100k's and o200k's \p{N}{1,3} cut a run into threes from its
// first digit (no other alternative takes a digit), so chains that start in one at other offsets
// stay out of step with the serial chain: left there, every chunk of a megabyte of digits would
// be dropped (see chains_meet) and encoded on one thread. Each start scans back to its run's
// first digit, or to the previous start if the run goes on before it: that start was moved onto
// a group already, so groups follow it as well, and every byte is read once at most. Digits of
// other scripts (\p{N} too) end a run here: a start after them stays out of step, and the probe
// drops its chunk.
inline void align_to_digit_groups(std::string_view text, std::vector<std::size_t>& starts) {
  for (std::size_t k = 1; k < starts.size(); ++k) {
    const std::size_t start = starts[k], previous = starts[k - 1];
    if (start >= text.size() || !is_ascii_digit(text[start])) continue;
    std::size_t first = start;  // a group's first digit once the scans stop
    for (std::uint64_t word; first >= previous + 8; first -= 8) {  // 8 bytes a step through long runs
      std::memcpy(&word, text.data() + first - 8, 8);
      if (!all_ascii_digits(word)) break;
    }
    while (first > previous && is_ascii_digit(text[first - 1])) --first;
    // The next group's first digit, or the first byte after the run if that comes sooner.
    const std::size_t group = first + (start - first + 2) / 3 * 3;
    std::size_t aligned = start;
    while (aligned < group && aligned < text.size() && is_ascii_digit(text[aligned])) ++aligned;
    starts[k] = aligned;
  }
}

// How far before a chunk's start a probe chain begins; see chains_meet. A multiple of 3, so
// that in a run of digits the probe starts in step with a start that align_to_digit_groups set.
inline constexpr std::size_t kProbeBytes = 1026;

// Whether a chain started kProbeBytes earlier reaches one of `heads` (a chunk's first piece
// starts). Where it does not, chains from different starts keep out of step (in a run of digits
// that align_to_digit_groups cannot place, the threes depend on where a chain began), the chunk
// would never meet its left neighbour, and encoding it would be wasted work.
inline bool chains_meet(const PreTokenizer& pretokenizer, std::string_view text, std::size_t start,
                        const std::vector<std::size_t>& heads) {
  bool met = false;
  pretokenizer.scan_from(text, code_point_start(text, start > kProbeBytes ? start - kProbeBytes : 0),
                         [&](std::size_t piece, std::size_t) {
                           met = std::binary_search(heads.begin(), heads.end(), piece);
                           return !met && piece <= heads.back();
                         });
  return met;
}

// Pieces of this many bytes or more count as giant: see starts_giant_piece.
inline constexpr std::size_t kGiantPieceBytes = 4096;

// Whether the piece that starts at `start` runs on for kGiantPieceBytes or more (a megabyte of
// one letter is a single piece). Answered on a view that ends kGiantPieceBytes after `start`,
// so it costs that much scanning at most, where finding the piece's real end would scan all of
// it. Cut short, a pattern may end its piece a byte or so earlier than in the whole text (a
// run of spaces gives its last one to the next word), which only matters to the caller's
// choice, not to the ids.
inline bool starts_giant_piece(const PreTokenizer& pretokenizer, std::string_view text, std::size_t start) {
  if (text.size() - start <= kGiantPieceBytes) return false;
  const std::string_view view = text.substr(0, start + kGiantPieceBytes);
  bool reaches_end = false;
  pretokenizer.scan_from(view, start, [&](std::size_t, std::size_t end) {
    reaches_end = end == view.size();
    return false;
  });
  return reaches_end;
}

// Encodes `text` on all of TBB's threads with ids identical to a serial run of `chain`.
//
// The text is cut into chunks at guessed starts; each chunk encodes its own chain from its
// start. Chunk k runs past its end until its chain reaches one of the first kSyncPieces piece
// starts of a later chunk's chain: from that boundary on the two chains coincide, so the
// stitched result takes chunk k's ids up to it and the later chunk's ids from it. Chunk 0
// starts at 0, so following stops from chunk 0 reproduces the serial chain exactly. If chains
// fail to meet (a piece longer than a chunk), the stitch finishes the remainder serially.
// Where nothing is to be shared (a small text, a regex pattern, one thread), `alone`, the
// chain's single-threaded encoder, takes the whole text: the very code that the ratio against
// it is taken with. A text whose later chunks are all dropped (a megabyte of one letter) is
// chunk 0's alone, through its stop checks, its ids handed over whole.
template <class Chain>
void encode_in_chunks(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out, const Chain& chain,
                      void (*alone)(const Tokenizer&, std::string_view, std::vector<Rank>&)) {
  if (text.size() < kParallelThreshold || tokenizer.pretokenizer().kind() == PatternKind::regex) {
    alone(tokenizer, text, out);
    return;
  }
  const auto threads = static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
  if (threads < 2) {
    alone(tokenizer, text, out);
    return;
  }

  struct Chunk {
    std::size_t start = 0;
    std::once_flag prepared;          // sets heads and kept, once (see prepare)
    std::vector<std::size_t> heads;   // first piece starts of this chunk's chain
    bool kept = false;                // whether the chunk is worth encoding (see prepare)
    std::vector<std::size_t> counts;  // counts[i]: ids encoded before heads[i]
    std::vector<Rank> ids;
    std::size_t stop_chunk = 0;       // the chunk whose chain this one met (chunks: none)
    std::size_t stop_head = 0;        // at that chunk's heads[stop_head]
  };
  // Four chunks per thread, so that a thread the machine slows down leaves chunks to the others;
  // each thread keeps one BytePairEncoder, and its scratch space, across its chunks.
  // Each chunk costs a probe and a seam to stitch; four a thread was the best compromise measured
  // on both machines (docs/performance-notes.md).
  const std::size_t chunks = std::min(text.size() / kMinChunk, 4 * threads);
  std::vector<std::size_t> starts(chunks);
  for (std::size_t k = 1; k < chunks; ++k) starts[k] = chunk_start_near(text, k * text.size() / chunks);
  const PatternKind kind = tokenizer.pretokenizer().kind();
  if (kind == PatternKind::cl100k || kind == PatternKind::o200k) align_to_digit_groups(text, starts);
  std::vector<Chunk> parts(chunks);
  for (std::size_t k = 0; k < chunks; ++k) parts[k].start = starts[k];

  // Publishes chunk k's heads and whether it is kept. The left neighbour covers a chunk that
  // would only repeat its work: one that starts in a giant piece, one whose first piece runs
  // past the next chunk's start, or one whose chain the probe could not meet. The cheap tests
  // go first: in a giant piece, the scan for the chunk's first piece starts, and the probe,
  // would each run to the piece's end. Called by the chunk's own task before it encodes, and by
  // its left neighbour's chain on reaching its start, whichever comes first: so the probes run
  // among the encoding, with no phase of their own for the threads to wait out, and once_flag
  // makes the other caller wait for the heads to be complete.
  const auto prepare = [&](std::size_t k) {
    Chunk& c = parts[k];
    std::call_once(c.prepared, [&] {
      if (k == 0) {  // no chunk stops at chunk 0: its heads are never needed
        c.kept = true;
        return;
      }
      if (starts_giant_piece(tokenizer.pretokenizer(), text, c.start)) return;
      tokenizer.pretokenizer().scan_from(text, c.start, [&](std::size_t start, std::size_t) {
        c.heads.push_back(start);
        return c.heads.size() < kSyncPieces;
      });
      const std::size_t next_start = k + 1 < chunks ? parts[k + 1].start : text.size();
      c.kept = c.heads.size() >= 2 && c.heads[1] <= next_start &&
               chains_meet(tokenizer.pretokenizer(), text, c.start, c.heads);
    });
  };

  // Stops chunk k's chain where it meets a later chunk's: at one of that chunk's heads, from
  // where the later chunk's ids are the serial ones. The limit is 0 while the chunk still counts
  // the ids before its own first pieces (counts[i] for heads[i]), then the next chunk's start:
  // no piece before it can meet that chunk.
  using Prepare = decltype(prepare);
  class MeetingStop final : public ChainStop {
   public:
    MeetingStop(std::vector<Chunk>& parts, std::size_t k, const Prepare& prepare)
        : parts_(parts), chunk_(parts[k]), next_(k + 1), prepare_(prepare) {
      next_start_ = next_ < parts.size() ? parts[next_].start : std::numeric_limits<std::size_t>::max();
      set_limit();
    }

   private:
    bool reached(std::size_t start) override {
      if (chunk_.counts.size() < chunk_.heads.size()) chunk_.counts.push_back(chunk_.ids.size());
      const bool met = meets(start);
      set_limit();
      return met;
    }
    bool meets(std::size_t start) {
      if (start < next_start_) return false;
      // Skip chunks that are not kept, and those whose published starts this chain has passed
      // without meeting them.
      for (; next_ < parts_.size(); ++next_) {
        prepare_(next_);
        if (parts_[next_].kept && start <= parts_[next_].heads.back()) break;
      }
      if (next_ == parts_.size()) {
        next_start_ = std::numeric_limits<std::size_t>::max();
        return false;
      }
      next_start_ = parts_[next_].start;
      if (start < next_start_) return false;
      const auto& heads = parts_[next_].heads;
      const auto it = std::lower_bound(heads.begin(), heads.end(), start);
      if (it == heads.end() || *it != start) return false;
      chunk_.stop_chunk = next_;
      chunk_.stop_head = static_cast<std::size_t>(it - heads.begin());
      return true;
    }
    void set_limit() { limit_ = chunk_.counts.size() < chunk_.heads.size() ? 0 : next_start_; }

    std::vector<Chunk>& parts_;
    Chunk& chunk_;
    std::size_t next_;        // the first chunk this chain may still meet
    std::size_t next_start_;  // its start, or the largest size_t if none is left
    const Prepare& prepare_;
  };

  // One encoder per thread, not per chunk: its scratch space is allocated once, and its trials
  // of the piece cache (BytePairEncoder::Trial) span all of its chunks. A chunk is a task of
  // its own (simple_partitioner), so a thread that finishes early takes the next single chunk, not
  // a range the partitioner chose.
  tbb::enumerable_thread_specific<BytePairEncoder> encoders([&] { return BytePairEncoder(tokenizer); });
  tbb::parallel_for(std::size_t{0}, chunks, [&](std::size_t k) {
    Chunk& c = parts[k];
    c.stop_chunk = chunks;
    prepare(k);
    if (!c.kept) return;
    c.ids.reserve((text.size() / chunks) / 3);
    MeetingStop stop(parts, k, prepare);
    chain.encode(text, c.start, c.ids, encoders.local(), stop);
  }, tbb::simple_partitioner());

  // The stitched result: take(chunk, skip) for each chunk whose ids from index `skip` on follow,
  // in order. Returns where a serial remainder starts (the later chunk stopped before it counted
  // the head this chain met), or text.size() if there is none.
  const auto stitch = [&](auto&& take) {
    std::size_t k = 0, skip = 0;
    for (;;) {
      take(parts[k], skip);
      const Chunk& c = parts[k];
      if (c.stop_chunk == chunks) return text.size();
      const Chunk& next = parts[c.stop_chunk];
      if (c.stop_head >= next.counts.size()) return next.heads[c.stop_head];
      skip = next.counts[c.stop_head];
      k = c.stop_chunk;
    }
  };
  // A text that is chunk 0's alone (every later chunk dropped, as in one piece as long as the
  // text) hands its ids over: copied, 256 MiB of one letter made 128 MiB of fresh pages to fault
  // in, and held both copies at once.
  if (out.empty() && parts[0].stop_chunk == chunks) {
    out.swap(parts[0].ids);
    return;
  }
  // Counted first, so that an empty `out` is allocated once at its size: grown by doubling, it
  // held an old and a new copy of its ids at once, on top of the chunks' ids. One that already
  // holds ids still grows at least geometrically: Tokenizer::encode appends the texts between
  // special tokens one by one, and an exact fit for each would copy all earlier ids each time.
  // Each chunk's ids are freed as soon as they are copied.
  std::size_t total = 0;
  stitch([&](const Chunk& c, std::size_t skip) { total += c.ids.size() - skip; });
  if (const std::size_t needed = out.size() + total; needed > out.capacity())
    out.reserve(std::max(needed, 2 * out.capacity()));
  const std::size_t rest = stitch([&](Chunk& c, std::size_t skip) {
    out.insert(out.end(), c.ids.begin() + static_cast<std::ptrdiff_t>(skip), c.ids.end());
    std::vector<Rank>().swap(c.ids);
  });
  if (rest < text.size()) {
    BytePairEncoder bpe(tokenizer);
    ChainStop never;
    chain.encode(text, rest, out, bpe, never);
  }
}

}  // namespace tokenizer::chunked
