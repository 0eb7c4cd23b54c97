#include "python_values.hpp"

#include <cstdint>
#include <limits>

namespace py = pybind11;

namespace tokbench_python {

Utf8Text::Utf8Text(py::handle text) {
  if (!PyUnicode_Check(text.ptr()))
    throw py::type_error("expected str, not " + std::string(Py_TYPE(text.ptr())->tp_name));
  Py_ssize_t size = 0;
  if (const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size)) {
    view_ = std::string_view(data, static_cast<std::size_t>(size));
    return;
  }
  if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) throw py::error_already_set();
  PyErr_Clear();
  // Through UTF-16, which passes a surrogate through and then replaces it on the way back.
  const py::object replaced =
      text.attr("encode")("utf-16", "surrogatepass").attr("decode")("utf-16", "replace");
  replaced_ = replaced.cast<std::string>();
  view_ = replaced_;
}

IdObjects::IdObjects(tokenizer::Rank id_end) : objects_(id_end) {
  for (tokenizer::Rank id = 0; id < id_end; ++id) {
    PyObject* object = PyLong_FromUnsignedLong(id);
    if (!object) throw py::error_already_set();
    PyList_SET_ITEM(objects_.ptr(), id, object);
  }
}

py::list IdObjects::list_of(const std::vector<tokenizer::Rank>& ids) const {
  py::list out(ids.size());
  PyObject** objects = PySequence_Fast_ITEMS(objects_.ptr());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    PyObject* object = objects[ids[i]];
    Py_INCREF(object);
    PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(i), object);
  }
  return out;
}

std::vector<tokenizer::Rank> to_ids(py::handle sequence) {
  const py::object items = py::reinterpret_steal<py::object>(PySequence_Fast(sequence.ptr(), "expected a sequence of int"));
  if (!items) throw py::error_already_set();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(items.ptr());
  PyObject** item = PySequence_Fast_ITEMS(items.ptr());
  std::vector<tokenizer::Rank> ids(static_cast<std::size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    // An int as it is, anything else (numpy's integers) through __index__.
    const py::object number = PyLong_Check(item[i]) ? py::reinterpret_borrow<py::object>(item[i])
                                                    : py::reinterpret_steal<py::object>(PyNumber_Index(item[i]));
    if (!number) throw py::error_already_set();
    const unsigned long long value = PyLong_AsUnsignedLongLong(number.ptr());
    if (PyErr_Occurred()) throw py::error_already_set();
    if (value > std::numeric_limits<tokenizer::Rank>::max()) {
      PyErr_SetString(PyExc_OverflowError, "out of range integral type conversion attempted");
      throw py::error_already_set();
    }
    ids[static_cast<std::size_t>(i)] = static_cast<tokenizer::Rank>(value);
  }
  return ids;
}

}  // namespace tokbench_python
