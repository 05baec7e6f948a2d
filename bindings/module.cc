// fastenough._core: the thin nanobind layer over the C++ core. It converts
// types, turns Status into exceptions and releases the GIL for long work.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "fastenough/util/build_info.h"
#include "register.h"

NB_MODULE(_core, m) {
  m.doc() = "fastenough C++ core";
  m.attr("__version__") = FASTENOUGH_VERSION;
  m.def(
      "build_info",
      [] {
        fastenough::util::BuildInfo b = fastenough::util::GetBuildInfo();
        nanobind::dict d;
        d["version"] = b.version;
        d["git_revision"] = b.git_revision;
        d["json"] = b.json_backend;
        d["gzip"] = b.gzip_backend;
        d["compiler"] = b.compiler;
        return d;
      },
      "Version, git revision and compiled-in JSON/gzip libraries of this build.");
  fastenough::bindings::RegisterTrace(m);
  fastenough::bindings::RegisterSample(m);
  fastenough::bindings::RegisterRundir(m);
  fastenough::bindings::RegisterChecks(m);
  fastenough::bindings::RegisterStepHook(m);
  fastenough::bindings::RegisterDecide(m);
  fastenough::bindings::RegisterStats(m);
  fastenough::bindings::RegisterCompare(m);
  fastenough::bindings::RegisterDiff(m);
  fastenough::bindings::RegisterPysrc(m);
  fastenough::bindings::RegisterLint(m);
  fastenough::bindings::RegisterCallThrough(m);
  fastenough::bindings::RegisterUnits(m);
}
