// The Python module `tokbench`: tiktoken's encode surface over the tokenizer library, so that a
// Python program switches by changing its import, and so that scripts/peers measures ours from
// Python at the same call overhead as every peer.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "python_values.hpp"
#include "special_token_sets.hpp"
#include "fast_methods.hpp"
#include "tokenizer/tokenizer.hpp"

namespace py = pybind11;
using tokenizer::Rank;

namespace tokbench_python {

namespace {

// Texts shorter than this are encoded holding the GIL: releasing and taking it back costs more
// than a sentence takes to encode.
constexpr std::size_t kReleaseGilBytes = 4096;

// f(), without the GIL for a text long enough to be worth releasing it.
template <class F>
auto releasing_gil_for(std::string_view text, F f) {
  if (text.size() < kReleaseGilBytes) return f();
  py::gil_scoped_release released;
  return f();
}

const tokenizer::Encoder& encoder_named(const std::optional<std::string>& name) {
  if (!name) return tokenizer::fastest_encoder();
  const tokenizer::Encoder* encoder = tokenizer::find_encoder(*name);
  std::string known;
  for (const tokenizer::Encoder* e : tokenizer::supported_encoders()) {
    if (!known.empty()) known += ", ";
    known += e->name;
  }
  if (!encoder) throw py::value_error("unknown encoder '" + *name + "' (this CPU runs: " + known + ")");
  if (!encoder->is_supported()) throw py::value_error("encoder '" + *name + "' needs instructions this CPU lacks (it runs: " + known + ")");
  return *encoder;
}

// tiktoken's Encoding: a Tokenizer and the encoder it encodes with. Encodings made from one another
// (with_encoder) share the Tokenizer and its IdObjects.
class Encoding {
 public:
  Encoding(std::shared_ptr<const tokenizer::Tokenizer> tokenizer, const tokenizer::Encoder& encoder)
      : tokenizer_(std::move(tokenizer)), encoder_(&encoder), id_objects_(std::make_shared<IdObjects>(tokenizer_->vocabulary().id_end())),
        default_specials_(std::make_shared<const SpecialTokenSets>(tokenizer_->vocabulary(), py::set(), py::str("all"))) {}
  Encoding(const Encoding& other, const tokenizer::Encoder& encoder)
      : tokenizer_(other.tokenizer_), encoder_(&encoder), id_objects_(other.id_objects_), default_specials_(other.default_specials_) {}

  const tokenizer::Tokenizer& tokenizer() const { return *tokenizer_; }
  const tokenizer::Encoder& encoder() const { return *encoder_; }
  const tokenizer::Vocabulary& vocabulary() const { return tokenizer_->vocabulary(); }
  // tiktoken's defaults: no special token allowed, all disallowed; made once.
  const SpecialTokenSets& default_specials() const { return *default_specials_; }
  py::list to_list(const std::vector<Rank>& ids) const { return id_objects_->list_of(ids); }
  py::list to_lists(const std::vector<std::vector<Rank>>& batch) const {
    py::list out;
    for (const std::vector<Rank>& ids : batch) out.append(to_list(ids));
    return out;
  }

  std::vector<Rank> encode_ordinary(std::string_view text) const {
    return releasing_gil_for(text, [&] { return tokenizer_->encode_ordinary(text, *encoder_); });
  }

  // Tokenizer::encode takes the ordinary path itself when no special token is allowed.
  std::vector<Rank> encode(std::string_view text, const SpecialTokenSets& specials) const {
    specials.check(text);
    return releasing_gil_for(text, [&] { return tokenizer_->encode(text, specials.policy(), *encoder_); });
  }

  // Every document checked first (the first with a disallowed token raises), then all encoded
  // on at most `threads` threads without the GIL.
  std::vector<std::vector<Rank>> encode_batch(py::handle texts, int threads, const SpecialTokenSets& specials) const {
    if (threads < 1) throw py::value_error("num_threads must be at least 1, not " + std::to_string(threads));
    std::vector<Utf8Text> documents;
    for (py::handle text : texts) documents.emplace_back(text);
    std::vector<std::string_view> views;
    views.reserve(documents.size());
    for (const Utf8Text& d : documents) {
      specials.check(d.view());
      views.push_back(d.view());
    }
    py::gil_scoped_release released;
    const auto encode_all = [&] {
      if (!specials.allows_any()) return tokenizer_->encode_batch(views, *encoder_);
      std::vector<std::vector<Rank>> out(views.size());
      tbb::parallel_for(std::size_t{0}, views.size(),
                        [&](std::size_t i) { out[i] = tokenizer_->encode(views[i], specials.policy(), *encoder_); });
      return out;
    };
    // No more threads than TBB has: asked for more, it prints a warning and uses what it has. With
    // all of them, in TBB's own arena, whose workers are already there, rather than in an arena
    // made for the call, which its workers join anew.
    if (threads >= tbb::info::default_concurrency()) return encode_all();
    tbb::task_arena arena(threads);
    return arena.execute(encode_all);
  }

  // tiktoken's KeyError for an id that is no token.
  std::string decode_bytes(py::handle tokens) const {
    const std::vector<Rank> ids = to_ids(tokens);
    try {
      return tokenizer_->decode(ids);
    } catch (const tokenizer::UnknownTokenId& e) {
      throw py::key_error("Invalid token for decoding: " + std::to_string(e.id()));
    }
  }

 private:
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer_;
  const tokenizer::Encoder* encoder_;
  std::shared_ptr<IdObjects> id_objects_;
  std::shared_ptr<const SpecialTokenSets> default_specials_;
};

// get_encoding's objects, one per (encoding, encoder), sharing one Tokenizer per encoding: as in
// tiktoken, asking again for an encoding costs a lookup, not a load. Never destroyed: the
// Encodings hold Python objects, which must not be released after the interpreter has ended.
std::shared_ptr<Encoding> builtin_encoding(const std::string& name, const std::optional<std::string>& encoder_name) {
  static auto& encodings = *new std::map<std::pair<std::string, std::string>, std::shared_ptr<Encoding>>;
  const tokenizer::Encoder& encoder = encoder_named(encoder_name);
  std::shared_ptr<Encoding>& slot = encodings[{name, std::string(encoder.name)}];
  if (slot) return slot;
  for (const auto& [key, encoding] : encodings)
    if (key.first == name && encoding) return slot = std::make_shared<Encoding>(*encoding, encoder);
  try {
    slot = std::make_shared<Encoding>(std::make_shared<const tokenizer::Tokenizer>(tokenizer::Vocabulary::builtin(name)), encoder);
  } catch (const tokenizer::VocabularyError& e) {
    encodings.erase({name, std::string(encoder.name)});
    throw py::value_error(e.what());
  }
  return slot;
}

std::shared_ptr<Encoding> load_encoding(const std::string& path, const std::optional<std::string>& encoder_name,
                                        std::size_t piece_cache_bytes, std::size_t piece_memo_bytes,
                                        std::size_t long_piece_memo_bytes, std::size_t huge_piece_cache_bytes,
                                        std::size_t bulk_piece_memo_bytes) {
  const tokenizer::Encoder& encoder = encoder_named(encoder_name);
  try {
    return std::make_shared<Encoding>(
        std::make_shared<const tokenizer::Tokenizer>(
            tokenizer::Vocabulary::load(path),
            tokenizer::TokenizerOptions{piece_cache_bytes, piece_memo_bytes, long_piece_memo_bytes,
                                        huge_piece_cache_bytes, bulk_piece_memo_bytes}),
        encoder);
  } catch (const tokenizer::VocabularyError& e) {
    throw py::value_error(e.what());
  }
}

// Ids as a one-dimensional numpy array of uint32. A short result is copied into an array of
// numpy's own: one allocation, where handing the vector over takes three (the vector moved to
// the heap, the capsule that frees it, the array), about a tenth of a 60-byte call from Python. A
// longer one is handed over: no copy. The stride is given: left to pybind11 (Debian's 2.10), it
// comes from the dtype's item size as numpy 1 lays the dtype out, and under numpy 2 every
// element read the first id.
constexpr std::size_t kCopiedIds = 1024;
py::array_t<Rank> to_array(std::vector<Rank> ids) {
  const py::ssize_t stride = sizeof(Rank);
  if (ids.size() <= kCopiedIds) {
    py::array_t<Rank> copy({static_cast<py::ssize_t>(ids.size())}, {stride});
    std::copy(ids.begin(), ids.end(), copy.mutable_data());
    return copy;
  }
  auto* owned = new std::vector<Rank>(std::move(ids));
  const py::capsule free_ids(owned, [](void* p) { delete static_cast<std::vector<Rank>*>(p); });
  return py::array_t<Rank>({static_cast<py::ssize_t>(owned->size())}, {stride}, owned->data(), free_ids);
}

// The methods called once per text, the short call of a benchmark among them, as fast calls
// (fast_methods.hpp), with tiktoken's signatures.
struct OrdinaryArguments {
  static constexpr const char* arguments[] = {"text"};
  static constexpr std::size_t positional = 1;
};
struct EncodeOrdinary : OrdinaryArguments {
  static constexpr const char* name = "encode_ordinary";
  static constexpr const char* doc = "encode_ordinary($self, /, text)\n--\n\n";
  static py::object call(const Encoding& e, const auto& values) {
    return e.to_list(e.encode_ordinary(Utf8Text(values[0]).view()));
  }
};
struct EncodeOrdinaryToNumpy : OrdinaryArguments {
  static constexpr const char* name = "encode_ordinary_to_numpy";
  static constexpr const char* doc =
      "encode_ordinary_to_numpy($self, /, text)\n--\n\nencode_ordinary, as encode_to_numpy gives them.";
  static py::object call(const Encoding& e, const auto& values) {
    return to_array(e.encode_ordinary(Utf8Text(values[0]).view()));
  }
};
// values: text, allowed_special, disallowed_special; the sets are made for the call only where
// one is given.
struct SpecialArguments {
  static constexpr const char* arguments[] = {"text", "allowed_special", "disallowed_special"};
  static constexpr std::size_t positional = 1;
  static std::vector<Rank> encode(const Encoding& e, const auto& values) {
    const Utf8Text text(values[0]);
    if (!values[1] && !values[2]) return e.encode(text.view(), e.default_specials());
    const py::object allowed = values[1] ? py::reinterpret_borrow<py::object>(values[1]) : py::object(py::set());
    const py::object disallowed = values[2] ? py::reinterpret_borrow<py::object>(values[2]) : py::object(py::str("all"));
    return e.encode(text.view(), SpecialTokenSets(e.vocabulary(), allowed, disallowed));
  }
};
struct Encode : SpecialArguments {
  static constexpr const char* name = "encode";
  static constexpr const char* doc = "encode($self, /, text, *, allowed_special=(), disallowed_special='all')\n--\n\n";
  static py::object call(const Encoding& e, const auto& values) { return e.to_list(encode(e, values)); }
};
struct EncodeToNumpy : SpecialArguments {
  static constexpr const char* name = "encode_to_numpy";
  static constexpr const char* doc =
      "encode_to_numpy($self, /, text, *, allowed_special=(), disallowed_special='all')\n--\n\n"
      "encode, as a numpy array of uint32: up to 1,024 ids copied into an array numpy owns, more handed\n"
      "over without a copy.";
  static py::object call(const Encoding& e, const auto& values) { return to_array(encode(e, values)); }
};

}  // namespace

}  // namespace tokbench_python

PYBIND11_MODULE(tokbench, m) {
  using namespace tokbench_python;
  m.doc() = "tokbench's byte-level BPE tokenizer with tiktoken's encode surface: exactly tiktoken's ids.";

  m.def("get_encoding", &builtin_encoding, py::arg("encoding_name"), py::arg("encoder") = py::none(),
        "A built-in encoding (r50k_base, cl100k_base, o200k_base), loaded once. `encoder` names one of\n"
        "encoders() (default: the fastest this CPU runs); every encoder gives the same ids.");
  m.def("load_encoding", &load_encoding, py::arg("path"), py::arg("encoder") = py::none(),
        py::arg("piece_cache_bytes") = tokenizer::TokenizerOptions::kDefaultPieceCacheBytes,
        py::arg("piece_memo_bytes") = tokenizer::TokenizerOptions::kDefaultPieceMemoBytes,
        py::arg("long_piece_memo_bytes") = tokenizer::TokenizerOptions::kDefaultLongPieceMemoBytes,
        py::arg("huge_piece_cache_bytes") = tokenizer::TokenizerOptions::kDefaultHugePieceCacheBytes,
        py::arg("bulk_piece_memo_bytes") = tokenizer::TokenizerOptions::kDefaultBulkPieceMemoBytes,
        "An encoding from a .tiktoken file and the .json spec beside it, loaded anew: its piece cache\n"
        "(the ids of merged pieces, kept across calls) starts empty and holds piece_cache_bytes at\n"
        "most (0: none); each thread that encodes keeps a memo of the pieces it met of\n"
        "piece_memo_bytes at most (0: none), and beside it long_piece_memo_bytes for pieces of more\n"
        "than 16 bytes (0: none); pieces of 64 KiB or more are kept, for every thread, in records of\n"
        "huge_piece_cache_bytes at most (0: none); a thread that meets text its memo cannot hold\n"
        "(random base64) keeps that text's pieces in bulk_piece_memo_bytes more (0: none).");
  m.def("list_encoding_names", &tokenizer::Vocabulary::builtin_names);
  m.def("encoders", [] {
    std::vector<std::string> names;
    for (const tokenizer::Encoder* e : tokenizer::supported_encoders()) names.emplace_back(e->name);
    return names;
  }, "The encoders this CPU runs, simplest first; the last is the default.");

  const py::str all("all");
  const py::set none;
  py::class_<Encoding, std::shared_ptr<Encoding>> encoding(m, "Encoding");
  encoding.def_property_readonly("name", [](const Encoding& e) { return e.vocabulary().name(); })
      .def_property_readonly("encoder", [](const Encoding& e) { return std::string(e.encoder().name); })
      .def_property_readonly("piece_cache_bytes", [](const Encoding& e) { return e.tokenizer().piece_cache_bytes(); })
      .def_property_readonly("piece_memo_bytes", [](const Encoding& e) { return e.tokenizer().piece_memo_bytes(); })
      .def_property_readonly("huge_piece_cache_bytes",
                             [](const Encoding& e) { return e.tokenizer().huge_piece_cache_bytes(); })
      .def_property_readonly("n_vocab", [](const Encoding& e) { return e.vocabulary().id_end(); })
      .def_property_readonly("max_token_value", [](const Encoding& e) { return e.vocabulary().id_end() - 1; })
      .def_property_readonly("eot_token", [](const Encoding& e) {
        const tokenizer::SpecialToken* eot = e.vocabulary().find_special("<|endoftext|>");
        if (!eot) throw py::key_error("<|endoftext|>");
        return eot->rank;
      })
      .def_property_readonly("special_tokens_set", [](const Encoding& e) {
        py::set out;
        for (const tokenizer::SpecialToken& s : e.vocabulary().special_tokens()) out.add(py::str(s.text));
        return out;
      })
      .def("with_encoder", [](const Encoding& e, const std::string& name) { return std::make_shared<Encoding>(e, encoder_named(name)); },
           py::arg("encoder"), "This encoding with another of encoders(): the same ids, the same loaded vocabulary.")
      .def("encode_ordinary_batch", [](const Encoding& e, py::handle texts, int threads) {
        return e.to_lists(e.encode_batch(texts, threads, SpecialTokenSets(e.vocabulary(), py::set(), py::tuple())));
      }, py::arg("text"), py::kw_only(), py::arg("num_threads") = 8)
      .def("encode_ordinary_batch_to_numpy", [](const Encoding& e, py::handle texts, int threads) {
        py::list out;
        for (std::vector<Rank>& ids : e.encode_batch(texts, threads, SpecialTokenSets(e.vocabulary(), py::set(), py::tuple())))
          out.append(to_array(std::move(ids)));
        return out;
      }, py::arg("text"), py::kw_only(), py::arg("num_threads") = 8,
      "encode_ordinary_batch, each document's ids as encode_to_numpy gives them.")
      .def("encode_batch", [](const Encoding& e, py::handle texts, int threads, py::handle allowed, py::handle disallowed) {
        return e.to_lists(e.encode_batch(texts, threads, SpecialTokenSets(e.vocabulary(), allowed, disallowed)));
      }, py::arg("text"), py::kw_only(), py::arg("num_threads") = 8, py::arg("allowed_special") = none,
      py::arg("disallowed_special") = all)
      .def("decode_bytes", [](const Encoding& e, py::handle tokens) { return py::bytes(e.decode_bytes(tokens)); },
           py::arg("tokens"))
      .def("decode", [](const Encoding& e, py::handle tokens, const std::string& errors) {
        const std::string bytes = e.decode_bytes(tokens);
        PyObject* text = PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), errors.c_str());
        if (!text) throw py::error_already_set();
        return py::reinterpret_steal<py::str>(text);
      }, py::arg("tokens"), py::arg("errors") = "replace")
      .def("__repr__", [](const Encoding& e) { return "<Encoding '" + e.vocabulary().name() + "'>"; });
  def_fast_method<EncodeOrdinary>(encoding);
  def_fast_method<EncodeOrdinaryToNumpy>(encoding);
  def_fast_method<Encode>(encoding);
  def_fast_method<EncodeToNumpy>(encoding);
}
