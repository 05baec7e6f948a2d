// fastenough._core.pysrc_dump: the C++ Python parser's tree as text, for the
// tests that compare it node by node with CPython's ast
// (tests/python/lint/test_pysrc_parser.py).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>

#include "fastenough/pysrc/dump.h"
#include "fastenough/pysrc/parser.h"
#include "register.h"

namespace nb = nanobind;

namespace fastenough::bindings {

void RegisterPysrc(nb::module_& m) {
  m.def(
      "pysrc_dump",
      [](const std::string& source) -> nb::tuple {
        std::string dump;
        pysrc::ParseError error;
        {
          nb::gil_scoped_release release;
          pysrc::Arena arena;
          pysrc::ParseResult r = pysrc::ParseModule(source, arena);
          if (r.ok()) {
            dump = pysrc::DumpTree(*r.module);
          } else {
            error = r.error;
          }
        }
        if (!error.message.empty()) {
          nb::dict e;
          e["line"] = error.line;
          e["col"] = error.col;
          e["message"] = error.message;
          e["too_deep"] = error.too_deep;
          return nb::make_tuple(nb::none(), e);
        }
        return nb::make_tuple(dump, nb::none());
      },
      nb::arg("source"),
      "Parse Python source with the C++ parser: (dump text, None) or (None, error dict).");
}

}  // namespace fastenough::bindings
