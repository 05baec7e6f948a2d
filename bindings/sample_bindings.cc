// Sampler entry points (device and process sampling for `fastenough run`).
#include <nanobind/nanobind.h>

#include "register.h"

namespace nb = nanobind;

namespace fastenough::bindings {

void RegisterSample(nb::module_& m) { (void)m; }

}  // namespace fastenough::bindings
