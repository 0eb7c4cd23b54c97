#include "special_token_sets.hpp"

#include <algorithm>

namespace py = pybind11;

namespace tokbench_python {

namespace {

bool is_all(py::handle argument) { return py::isinstance<py::str>(argument) && argument.cast<std::string>() == "all"; }

// The texts of a collection argument. A str other than "all" is refused: iterated, it would be
// its characters.
std::vector<std::string> texts_of(py::handle argument, const char* name) {
  if (py::isinstance<py::str>(argument))
    throw py::type_error(std::string(name) + " must be \"all\" or a collection of str, not the str '" +
                         argument.cast<std::string>() + "'");
  std::vector<std::string> texts;
  for (py::handle item : argument) {
    if (!py::isinstance<py::str>(item))
      throw py::type_error(std::string(name) + " must hold str, not " + std::string(Py_TYPE(item.ptr())->tp_name));
    texts.push_back(item.cast<std::string>());
  }
  return texts;
}

bool contains(const std::vector<std::string>& texts, const std::string& text) {
  return std::find(texts.begin(), texts.end(), text) != texts.end();
}

}  // namespace

SpecialTokenSets::SpecialTokenSets(const tokenizer::Vocabulary& vocabulary, py::handle allowed, py::handle disallowed) {
  std::vector<std::string> allowed_texts;
  if (is_all(allowed)) {
    for (const tokenizer::SpecialToken& s : vocabulary.special_tokens()) allowed_texts.push_back(s.text);
  } else {
    for (std::string& text : texts_of(allowed, "allowed_special"))
      if (vocabulary.find_special(text)) allowed_texts.push_back(std::move(text));
  }
  if (is_all(disallowed)) {
    for (const tokenizer::SpecialToken& s : vocabulary.special_tokens())
      if (!contains(allowed_texts, s.text)) disallowed_.push_back(s.text);
  } else {
    for (std::string& text : texts_of(disallowed, "disallowed_special"))
      if (vocabulary.find_special(text)) disallowed_.push_back(std::move(text));
  }
  if (!allowed_texts.empty()) policy_ = tokenizer::SpecialTokenPolicy::only(std::move(allowed_texts));
}

void SpecialTokenSets::check(std::string_view text) const {
  const std::string* first = nullptr;
  std::size_t first_at = std::string_view::npos;
  for (const std::string& s : disallowed_) {
    const std::size_t at = text.find(s);
    if (at < first_at || (at == first_at && at != std::string_view::npos && s.size() > first->size())) first = &s, first_at = at;
  }
  if (!first) return;
  const std::string token = py::repr(py::str(*first)).cast<std::string>();
  throw py::value_error("Encountered text corresponding to disallowed special token " + token +
                        ".\nIf you want this text to be encoded as a special token, pass it to `allowed_special`, "
                        "e.g. `allowed_special={" + token + ", ...}`.\nIf you want this text to be encoded as normal "
                        "text, disable the check for this token by passing `disallowed_special=(enc.special_tokens_set - {" +
                        token + "})`.\nTo disable this check for all special tokens, pass `disallowed_special=()`.\n");
}

}  // namespace tokbench_python
