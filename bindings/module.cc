// fastenough._core: the thin nanobind layer over the C++ core. It converts
// types, turns Status into exceptions and releases the GIL for long work.
#include <nanobind/nanobind.h>

#include "register.h"

NB_MODULE(_core, m) {
  m.doc() = "fastenough C++ core";
  m.attr("__version__") = FASTENOUGH_VERSION;
  fastenough::bindings::RegisterTrace(m);
  fastenough::bindings::RegisterSample(m);
  fastenough::bindings::RegisterRundir(m);
  fastenough::bindings::RegisterChecks(m);
  fastenough::bindings::RegisterStepHook(m);
}
