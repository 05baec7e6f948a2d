#include "status_to_python.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {
const char* ErrorClassFor(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument: return "UsageError";
    case StatusCode::kNotFound: return "InputNotFoundError";
    case StatusCode::kDataLoss: return "BadInputError";
    case StatusCode::kUnimplemented: return "BadInputError";
    case StatusCode::kResourceExhausted: return "InputTooLargeError";
    default: return "InternalError";
  }
}
}  // namespace

void ThrowStatus(const Status& status) {
  nb::gil_scoped_acquire gil;
  nb::object errors = nb::module_::import_("fastenough.errors");
  nb::object cls = errors.attr(ErrorClassFor(status.code()));
  // A message may quote bytes of a damaged file (a key, a member name) that are
  // not UTF-8: replace them rather than fail to raise.
  const std::string& msg = status.message();
  PyObject* text = PyUnicode_DecodeUTF8(msg.data(), static_cast<Py_ssize_t>(msg.size()), "replace");
  PyErr_SetObject(cls.ptr(), text);
  Py_XDECREF(text);
  throw nb::python_error();
}

}  // namespace fastenough::bindings
