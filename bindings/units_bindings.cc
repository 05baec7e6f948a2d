// The one human formatting of durations, bytes and shares (util/units.h):
// render/units.py calls these, so what the renderers print and the finding
// texts the core writes agree to the character.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "fastenough/util/units.h"
#include "register.h"

namespace nb = nanobind;

namespace fastenough::bindings {

void RegisterUnits(nb::module_& m) {
  m.def("format_duration", &util::FormatDuration, nb::arg("ns"),
        "Nanoseconds as '512 ns', '500.0 µs', '1.23 ms', '12.35 s', '2.5 min' (the unit "
        "chosen on the printed value); '-' for NaN or an infinity.");
  m.def("format_bytes", &util::FormatBytes, nb::arg("bytes"),
        "Bytes as '1023 B', '1.0 KiB', '1.5 MiB', '80.0 GiB' (1024-based); '-' for a negative, "
        "NaN or infinite count.");
  m.def("format_share", &util::FormatShare, nb::arg("share"),
        "A fraction as a percentage with one decimal, 0.312 -> '31.2%'; '-' for a negative, "
        "NaN or infinite share.");
}

}  // namespace fastenough::bindings
