// Turns a core Status into an exception of the Python hierarchy in
// fastenough/errors.py (the only place where core errors become exceptions).
#pragma once

#include <nanobind/nanobind.h>

#include "fastenough/util/status.h"

namespace fastenough::bindings {

[[noreturn]] void ThrowStatus(const Status& status);

template <typename T>
T ValueOrThrow(StatusOr<T>&& s) {
  if (!s.ok()) ThrowStatus(s.status());
  return std::move(s).value();
}

}  // namespace fastenough::bindings
