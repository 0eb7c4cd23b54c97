#include "fast_methods.hpp"

#include <new>

namespace py = pybind11;

namespace tokbench_python::detail {

bool parse_arguments(const char* method, const char* const* names, std::size_t count, std::size_t positional,
                     PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, PyObject** values) {
  for (std::size_t i = 0; i < count; ++i) values[i] = nullptr;
  if (static_cast<std::size_t>(nargs) > positional) {
    PyErr_Format(PyExc_TypeError, "%s() takes %zu positional argument%s but %zd were given", method, positional,
                 positional == 1 ? "" : "s", nargs);
    return false;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) values[i] = args[i];
  const Py_ssize_t keywords = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < keywords; ++k) {
    PyObject* const keyword = PyTuple_GET_ITEM(kwnames, k);
    std::size_t i = 0;
    while (i < count && PyUnicode_CompareWithASCIIString(keyword, names[i]) != 0) ++i;
    if (i == count) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", method, keyword);
      return false;
    }
    if (values[i]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", method, names[i]);
      return false;
    }
    values[i] = args[nargs + k];
  }
  if (!values[0]) {
    PyErr_Format(PyExc_TypeError, "%s() missing 1 required argument: '%s'", method, names[0]);
    return false;
  }
  return true;
}

void set_python_error(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

void add_method(py::handle cls, PyMethodDef& definition) {
  const py::object method =
      py::reinterpret_steal<py::object>(PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &definition));
  if (!method) throw py::error_already_set();
  cls.attr(definition.ml_name) = method;
}

}  // namespace tokbench_python::detail
