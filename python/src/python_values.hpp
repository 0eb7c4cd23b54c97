#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/rank.hpp"

namespace tokbench_python {

// The UTF-8 bytes of a Python str, as tiktoken encodes it. Python keeps a str's UTF-8 form once
// made (for ASCII it is the str's own storage), so the view costs no copy; a str with lone
// surrogates, which UTF-8 cannot hold, is copied with each replaced by U+FFFD, as tiktoken does.
// The view lives as long as this object and the str.
class Utf8Text {
 public:
  explicit Utf8Text(pybind11::handle text);
  std::string_view view() const { return view_; }

 private:
  std::string replaced_;
  std::string_view view_;
};

// The Python int of every id of a vocabulary, made once, so that a list of ids is filled with
// references to them: made one by one, an int costs an allocation and its release later, which
// took longer than encoding the text did (beyond 256, Python caches no ints of its own).
class IdObjects {
 public:
  explicit IdObjects(tokenizer::Rank id_end);
  // A list of the ids, each below id_end.
  pybind11::list list_of(const std::vector<tokenizer::Rank>& ids) const;

 private:
  pybind11::list objects_;
};

// The ids of a sequence of ints, with tiktoken's errors: TypeError for an item that is no int,
// OverflowError for one outside 0 .. 2^32 - 1.
std::vector<tokenizer::Rank> to_ids(pybind11::handle sequence);

}  // namespace tokbench_python
