// fastenough._core.compare_paths: `fastenough compare` and the Python API
// fastenough.compare_paths (cpp/fastenough/compare/). Tolerances come as a
// dict {dtype name: (atol, rtol, ulp)} over the defaults; the result is the
// fastenough.compare/1 JSON text, parsed by the caller.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>

#include "fastenough/compare/compare_sets.h"
#include "fs_path.h"
#include "register.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace fastenough::bindings {

void RegisterCompare(nb::module_& m) {
  m.def(
      "compare_paths",
      [](const FsPath& a, const FsPath& b, const nb::dict& tolerances, bool exact,
         bool nan_equal, int top) {
        compare::CompareOptions opt;
        opt.exact = exact;
        opt.nan_equal = nan_equal;
        opt.top = top;
        for (auto [k, v] : tolerances) {
          const std::string name = nb::cast<std::string>(k);
          auto t = compare::DTypeFromName(name);
          if (!t || !compare::IsFloat(*t)) {
            ThrowStatus(InvalidArgument("tolerance for '" + name +
                                        "': not a float dtype (f64 f32 f16 bf16)"));
          }
          nb::tuple tup = nb::cast<nb::tuple>(v);
          opt.tol[static_cast<int>(*t)] = {nb::cast<double>(tup[0]), nb::cast<double>(tup[1]),
                                           nb::cast<uint64_t>(tup[2])};
        }
        StatusOr<std::string> json = [&] {
          nb::gil_scoped_release release;
          return compare::ComparePathsJson(a.native(), b.native(), opt);
        }();
        return ValueOrThrow(std::move(json));
      },
      nb::arg("a"), nb::arg("b"), nb::arg("tolerances"), nb::arg("exact") = false,
      nb::arg("nan_equal") = false, nb::arg("top") = 10,
      "Compare the tensors of two paths key by key; fastenough.compare/1 JSON text.");
  m.def(
      "compare_default_tolerances",
      [] {
        const auto tol = compare::CompareOptions::DefaultTolerances();
        nb::dict d;
        for (int i = 0; i < compare::kNumDTypes; ++i) {
          const auto t = static_cast<compare::DType>(i);
          if (!compare::IsFloat(t)) continue;
          d[compare::DTypeName(t)] = nb::make_tuple(tol[i].atol, tol[i].rtol, tol[i].ulp);
        }
        return d;
      },
      "The per-dtype (atol, rtol, ulp) defaults of compare_paths.");
}

}  // namespace fastenough::bindings
