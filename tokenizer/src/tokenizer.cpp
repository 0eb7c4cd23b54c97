#include "tokenizer/tokenizer.hpp"

#include <algorithm>
#include <thread>

#include "huge_piece_cache.hpp"
#include "long_piece_encoder.hpp"
#include "piece_cache.hpp"
#include "piece_memo.hpp"

namespace tokenizer {

UnknownTokenId::UnknownTokenId(Rank id, std::size_t index)
    : std::out_of_range("unknown token id " + std::to_string(id) + " at position " + std::to_string(index)),
      id_(id),
      index_(index) {}

DisallowedSpecialToken::DisallowedSpecialToken(const std::string& text, std::size_t offset)
    : std::runtime_error("disallowed special token " + text + " at byte " + std::to_string(offset)),
      text_(text),
      offset_(offset) {}

namespace {

std::shared_ptr<PieceCache> make_piece_cache(const TokenizerOptions& options) {
  if (options.piece_cache_bytes < PieceCache::kMinBytes) return nullptr;
  return std::make_shared<PieceCache>(options.piece_cache_bytes);
}

std::shared_ptr<PieceMemoPool> make_piece_memos(const TokenizerOptions& options) {
  if (options.piece_memo_bytes == 0) return nullptr;
  return std::make_shared<PieceMemoPool>(options.piece_memo_bytes, options.long_piece_memo_bytes,
                                         options.bulk_piece_memo_bytes, std::max(1u, std::thread::hardware_concurrency()));
}

std::shared_ptr<HugePieceCache> make_huge_piece_cache(const TokenizerOptions& options) {
  if (options.huge_piece_cache_bytes == 0) return nullptr;
  return std::make_shared<HugePieceCache>(options.huge_piece_cache_bytes);
}

}  // namespace

Tokenizer::Tokenizer(Vocabulary vocabulary, TokenizerOptions options)
    : vocabulary_(std::make_shared<const Vocabulary>(std::move(vocabulary))),
      pretokenizer_(vocabulary_->pattern()),
      long_pieces_(std::make_shared<const LongPieceIndex>(vocabulary_->ranks())),
      piece_cache_(make_piece_cache(options)),
      piece_memos_(make_piece_memos(options)),
      huge_pieces_(make_huge_piece_cache(options)) {}

Tokenizer::Tokenizer(const Tokenizer& other, TokenizerOptions options)
    : vocabulary_(other.vocabulary_),
      pretokenizer_(other.pretokenizer_),
      long_pieces_(other.long_pieces_),
      piece_cache_(make_piece_cache(options)),
      piece_memos_(make_piece_memos(options)),
      huge_pieces_(make_huge_piece_cache(options)) {}

std::size_t Tokenizer::piece_cache_bytes() const { return piece_cache_ ? piece_cache_->memory_bytes() : 0; }
std::size_t Tokenizer::piece_memo_bytes() const { return piece_memos_ ? piece_memos_->memory_bytes() : 0; }
std::size_t Tokenizer::huge_piece_cache_bytes() const { return huge_pieces_ ? huge_pieces_->memory_bytes() : 0; }

std::vector<Rank> Tokenizer::encode_ordinary(std::string_view text, const Encoder& encoder) const {
  // Room for a token per 3 bytes (English has about 3.5), so that most texts allocate once
  // instead of a dozen times, whose copies were measurable on short and long texts alike
  // (docs/performance-notes.md). Not for the parallel encoders' long texts: they allocate the
  // output at its exact size once they know it (chunked_encoding.hpp).
  std::vector<Rank> out;
  if (text.size() <= 64 * 1024 || !encoder.multithreaded()) out.reserve(text.size() / 3 + 16);
  encoder.encode(*this, text, out);
  return out;
}

std::vector<Rank> Tokenizer::encode(std::string_view text, const SpecialTokenPolicy& policy,
                                    const Encoder& encoder) const {
  std::vector<const SpecialToken*> allowed;
  // The disallowed special token that occurs first in the text, as tiktoken reports it.
  const SpecialToken* first_disallowed = nullptr;
  std::size_t first_disallowed_at = std::string_view::npos;
  for (const SpecialToken& s : vocabulary_->special_tokens()) {
    const bool is_allowed =
        policy.allow == SpecialTokenPolicy::Allow::all ||
        (policy.allow == SpecialTokenPolicy::Allow::listed &&
         std::find(policy.listed.begin(), policy.listed.end(), s.text) != policy.listed.end());
    if (is_allowed) {
      allowed.push_back(&s);
    } else if (policy.error_on_disallowed) {
      if (const std::size_t at = text.find(s.text); at < first_disallowed_at) first_disallowed = &s, first_disallowed_at = at;
    }
  }
  if (first_disallowed) throw DisallowedSpecialToken(first_disallowed->text, first_disallowed_at);
  if (allowed.empty()) return encode_ordinary(text, encoder);

  // Split at the leftmost allowed special token (the longest where several start there) and
  // encode the text between as ordinary text, as tiktoken does.
  std::vector<Rank> out;
  // next[i]: where allowed[i] next occurs at or after pos (npos: nowhere).
  std::vector<std::size_t> next(allowed.size());
  for (std::size_t i = 0; i < allowed.size(); ++i) next[i] = text.find(allowed[i]->text);
  std::size_t pos = 0;
  for (;;) {
    std::size_t best_at = text.size();
    const SpecialToken* best = nullptr;
    for (std::size_t i = 0; i < allowed.size(); ++i) {
      if (next[i] == std::string_view::npos) continue;
      if (next[i] < pos) next[i] = text.find(allowed[i]->text, pos);
      if (next[i] == std::string_view::npos) continue;
      if (next[i] < best_at || (next[i] == best_at && best && allowed[i]->text.size() > best->text.size()))
        best_at = next[i], best = allowed[i];
    }
    encoder.encode(*this, text.substr(pos, best_at - pos), out);
    if (!best) return out;
    out.push_back(best->rank);
    pos = best_at + best->text.size();
  }
}

std::string Tokenizer::decode(std::span<const Rank> ids) const {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string_view bytes = vocabulary_->token_bytes(ids[i]);
    if (bytes.empty()) throw UnknownTokenId(ids[i], i);
    out.append(bytes);
  }
  return out;
}

}  // namespace tokenizer
