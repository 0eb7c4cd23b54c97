#include "bench_inputs.hpp"

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace benches {

namespace {

std::string read_corpus(const std::string& name) {
  const auto path = tokenizer::Vocabulary::data_dir() / "corpus" / name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open benchmark input " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

}  // namespace

std::string_view short_text() {
  static constexpr std::string_view text = "The quick brown fox doesn't jump over 12 lazy dogs, it naps.";
  static_assert(text.size() == 60);
  return text;
}

std::string_view medium_text() {
  static const std::string text = [] {
    const std::string_view all = long_text();
    return std::string(all.substr(0, all.rfind('\n', 4096) + 1));
  }();
  return text;
}

std::string_view long_text() {
  static const std::string text = read_corpus("en_shakespeare.txt");
  return text;
}

const tokenizer::Tokenizer& tokenizer_for(const std::string& encoding) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<tokenizer::Tokenizer>> cache;
  const std::lock_guard lock(mutex);
  auto& slot = cache[encoding];
  if (!slot) slot = std::make_unique<tokenizer::Tokenizer>(tokenizer::Vocabulary::builtin(encoding));
  return *slot;
}

}  // namespace benches
