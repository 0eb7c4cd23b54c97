#include "chunked_encoding.hpp"
#include "simd/piece_batch_scanner.hpp"
#include "tokenizer/encoder_registry.hpp"

namespace tokenizer {

namespace {

// Chain encoder (see chunked_encoding.hpp) over the SIMD batch scanner: piece boundaries come
// kBatchPieces at a time from the vector classifier, then each piece is encoded. The batch's
// rank-table slots are not prefetched: on real text the slots a document uses are mostly cached
// already (docs/performance-notes.md).
struct SimdChain {
  const PreTokenizer& pretokenizer;
  simd::ScanPiecesFn scan;

  std::size_t encode(std::string_view text, std::size_t from, std::vector<Rank>& out, BytePairEncoder& bpe,
                     chunked::ChainStop& stop) const {
    // Without a scanner (a regex pattern) the scalar chain is all there is.
    if (!scan)
      return chunked::ScalarChain{pretokenizer}.encode(text, from, out, bpe, stop);
    const auto* data = reinterpret_cast<const std::uint8_t*>(text.data());
    std::size_t ends[simd::kBatchPieces];
    std::size_t pos = from;
    const std::size_t first_id = out.size();
    while (pos < text.size()) {
      reserve_for_the_rest(text, from, pos, stop, first_id, out);
      const std::size_t n = scan(data, text.size(), pos, ends, simd::kBatchPieces);
      // Where no piece may stop the chain, the batch at once up to its last piece with 8 bytes of
      // text after its start (a piece ending at ends[m - 1] starts before it), the few after
      // that, near the text's end, one by one.
      if (stop.clear_before(ends[n - 1])) {
        std::size_t m = n;
        while (m > 0 && ends[m - 1] + 8 > text.size()) --m;
        if (m > 0) {
          bpe.encode_pieces(text, pos, ends, m, out);
          pos = ends[m - 1];
        }
        for (std::size_t j = m; j < n; pos = ends[j++]) bpe.encode(text, pos, ends[j], out);
        continue;
      }
      for (std::size_t j = 0; j < n; pos = ends[j++]) {
        if (stop.at(pos)) return pos;
        bpe.encode(text, pos, ends[j], out);
      }
    }
    return pos;
  }

  // Where the room for ids (Tokenizer::encode_ordinary reserves one per 3 bytes, as English needs)
  // will not hold the rest of the chain's text at the rate of its ids so far and an eighth more,
  // room for that, or at least half as much again: random base64 has an id per 1.4 bytes, and
  // the vector's own doubling copied its ids and faulted in fresh pages twice over a megabyte of it
  // (docs/performance-notes.md). Ids never outnumber bytes.
  static void reserve_for_the_rest(std::string_view text, std::size_t from, std::size_t pos,
                                   const chunked::ChainStop& stop, std::size_t first_id, std::vector<Rank>& out) {
    const std::size_t left = std::max(stop.end_within(text.size()), pos) - pos;
    // Room for an id per 3 bytes, as reserved, is room enough at English's rate: no division.
    if (out.capacity() - out.size() >= left / 3 || pos == from) [[likely]]
      return;
    const double rate = static_cast<double>(out.size() - first_id) / static_cast<double>(pos - from);
    const std::size_t rest = std::min(left, static_cast<std::size_t>(static_cast<double>(left) * rate * 1.125));
    if (out.capacity() - out.size() >= rest) return;
    out.reserve(std::max(out.size() + rest, out.capacity() + out.capacity() / 2));
  }
};

static_assert(simd::kBatchPieces <= BytePairEncoder::kMaxBatch, "a scanner's batch goes to encode_pieces whole");

SimdChain simd_chain(const Tokenizer& tokenizer) {
  return {tokenizer.pretokenizer(), simd::best_piece_batch_scanners().for_kind(tokenizer.pretokenizer().kind())};
}

}  // namespace

void encode_simd(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out) {
  BytePairEncoder bpe(tokenizer);
  chunked::ChainStop never;
  simd_chain(tokenizer).encode(text, 0, out, bpe, never);
}

void encode_simd_parallel(const Tokenizer& tokenizer, std::string_view text, std::vector<Rank>& out) {
  chunked::encode_in_chunks(tokenizer, text, out, simd_chain(tokenizer), encode_simd);
}

}  // namespace tokenizer
