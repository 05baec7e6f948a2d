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
    default: return "InternalError";
  }
}
}  // namespace

void ThrowStatus(const Status& status) {
  nb::gil_scoped_acquire gil;
  nb::object errors = nb::module_::import_("fastenough.errors");
  nb::object cls = errors.attr(ErrorClassFor(status.code()));
  PyErr_SetString(cls.ptr(), status.message().c_str());
  throw nb::python_error();
}

}  // namespace fastenough::bindings
