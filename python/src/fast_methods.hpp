#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <cstddef>
#include <exception>

namespace tokbench_python {

// Methods bound to a class as CPython's own fast-call methods (METH_FASTCALL), not through
// pybind11's dispatcher: for every call that dispatcher builds a record of the call, matches it
// against the overloads, converts each argument through a type caster and fills in defaults,
// 200-400 ns, as long as a 60-byte encode from Python takes without it. A Method has
//   name, doc            static strings; doc starts with the signature CPython shows
//                        ("name($self, /, text, *, option=None)\n--\n\n")
//   arguments            the names of its arguments, the first `positional` of which may be given
//                        by position, all by keyword
//   call(self, values)   the result, from the arguments' objects in the order of `arguments`
//                        (nullptr for one not given), throwing as a pybind11 function may
// The first argument is required; a C++ exception becomes the Python exception pybind11 raises
// for it.
template <class Method, class Self, class... Options>
void def_fast_method(pybind11::class_<Self, Options...>& cls);

namespace detail {

// Fills values[0, count) from a fast call's arguments (nullptr for those not given); false, with
// TypeError set, for arguments the method does not take, or without the first.
bool parse_arguments(const char* method, const char* const* names, std::size_t count, std::size_t positional,
                     PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, PyObject** values);
// Sets the Python exception pybind11 would raise for `error`: error_already_set's own,
// pybind11's builtin exceptions (type_error, value_error, ...) as theirs, MemoryError for
// bad_alloc, RuntimeError for the rest.
void set_python_error(std::exception_ptr error);
void add_method(pybind11::handle cls, PyMethodDef& definition);

template <class Method, class Self>
PyObject* call_fast_method(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) noexcept {
  try {
    std::array<PyObject*, std::size(Method::arguments)> values;
    if (!parse_arguments(Method::name, Method::arguments, values.size(), Method::positional, args, nargs, kwnames,
                         values.data()))
      return nullptr;
    return Method::call(pybind11::handle(self).cast<const Self&>(), values).release().ptr();
  } catch (...) {
    set_python_error(std::current_exception());
    return nullptr;
  }
}

}  // namespace detail

template <class Method, class Self, class... Options>
void def_fast_method(pybind11::class_<Self, Options...>& cls) {
  static PyMethodDef definition{
      Method::name,
      reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&detail::call_fast_method<Method, Self>)),
      METH_FASTCALL | METH_KEYWORDS, Method::doc};
  detail::add_method(cls, definition);
}

}  // namespace tokbench_python
