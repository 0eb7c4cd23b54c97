#include "cold_encoding.hpp"

#include <string_view>

#include "bench_inputs.hpp"

namespace benches {

std::span<const ColdFamily> cold_families() {
  static const ColdFamily families[] = {
      {"long_encoding/cold", ColdWorkload::long_text, "cl100k_base"},
      {"long_encoding_o200k/cold", ColdWorkload::long_text, "o200k_base"},
      {"stream_encoding", ColdWorkload::stream, "cl100k_base"},
      {"stream_encoding_o200k", ColdWorkload::stream, "o200k_base"},
      {"encode_batch/cold", ColdWorkload::batch, "cl100k_base"},
  };
  return families;
}

std::unique_ptr<tokenizer::Tokenizer> fresh_tokenizer(const std::string& encoding, const tokenizer::Encoder& encoder) {
  auto fresh = std::make_unique<tokenizer::Tokenizer>(tokenizer_for(encoding), tokenizer::TokenizerOptions{});
  fresh->encode_ordinary(multilingual_text(), encoder);
  return fresh;
}

std::size_t encode_cold(ColdWorkload workload, const tokenizer::Tokenizer& tok, const tokenizer::Encoder& encoder) {
  std::size_t ids = 0;
  switch (workload) {
    case ColdWorkload::long_text:
      ids = tok.encode_ordinary(long_text(), encoder).size();
      break;
    case ColdWorkload::stream:
      for (const std::string_view document : batch_documents().subspan(1))
        ids += tok.encode_ordinary(document, encoder).size();
      break;
    case ColdWorkload::batch:
      for (const auto& document_ids : tok.encode_batch(batch_documents(), encoder)) ids += document_ids.size();
      break;
  }
  return ids;
}

std::size_t cold_input_bytes(ColdWorkload workload) {
  if (workload == ColdWorkload::long_text) return long_text().size();
  std::size_t bytes = 0;
  for (const std::string_view document : batch_documents().subspan(workload == ColdWorkload::stream ? 1 : 0))
    bytes += document.size();
  return bytes;
}

}  // namespace benches
