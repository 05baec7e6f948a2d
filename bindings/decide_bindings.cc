// fastenough._core.decide: the return-on-investment model (cpp/fastenough/decide/).
// Dicts in, dicts out; the arithmetic stays in the core.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <vector>

#include "fastenough/decide/roi.h"
#include "register.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {
template <typename T>
T Get(const nb::dict& d, const char* key, T fallback) {
  if (!d.contains(key) || d[key].is_none()) return fallback;
  return nb::cast<T>(d[key]);
}
}  // namespace

void RegisterDecide(nb::module_& m) {
  m.def(
      "decide",
      [](const nb::dict& run, const nb::dict& plan, const nb::list& fixes,
         const std::vector<std::string>& open_codes, const std::vector<std::string>& unpriced) {
        decide::RunFigures r{Get(run, "steady_step_ns", 0.0), Get<int64_t>(run, "steps_per_run", 0),
                             Get(run, "load_ns", 0.0), Get(run, "prepare_ns", 0.0),
                             Get(run, "compile_ns", 0.0), Get(run, "startup_ns", 0.0),
                             Get(run, "wall_ns", 0.0)};
        decide::Plan p{Get<int64_t>(plan, "remaining_runs", 0), Get(plan, "wait_hour_value", 1.0)};
        std::vector<decide::FixPlan> fs;
        for (nb::handle h : fixes) {
          nb::dict f = nb::cast<nb::dict>(h);
          fs.push_back({Get<std::string>(f, "code", ""), Get(f, "saving_per_step_ns", 0.0),
                        Get(f, "dev_hours", -1.0), Get(f, "verify_hours", 0.0),
                        Get(f, "maint_hours", 0.0)});
        }
        decide::Decision d = decide::Decide(r, p, fs, {open_codes, unpriced});
        nb::dict out;
        out["run_ns"] = d.run_ns;
        out["one_time_ns"] = d.one_time_ns;
        out["other_ns"] = d.other_ns;
        out["one_time_text"] = d.one_time_text;
        out["any_pays"] = d.any_pays;
        nb::list lst;
        for (const auto& x : d.fixes) {
          nb::dict e;
          e["code"] = x.code;
          e["saving_per_run_ns"] = x.saving_per_run_ns;
          e["hours_saved"] = x.hours_saved;
          e["cost_hours"] = x.cost_hours >= 0 ? nb::cast(x.cost_hours) : nb::none();
          e["budget_hours"] = x.budget_hours;
          e["share_of_run"] = x.share_of_run;
          e["verdict"] = decide::VerdictName(x.verdict);
          e["arithmetic"] = x.arithmetic;
          lst.append(e);
        }
        out["fixes"] = lst;
        out["fix_first"] = d.fix_first;
        out["measure"] = d.measure;
        out["recommendation"] = decide::RecommendationName(d.recommendation);
        return out;
      },
      nb::arg("run"), nb::arg("plan"), nb::arg("fixes"),
      nb::arg("open_codes") = std::vector<std::string>{},
      nb::arg("unpriced") = std::vector<std::string>{},
      "Hours saved over the remaining runs vs the cost of each fix, a verdict for each, and "
      "the recommendation: fix-first (an open finding changes results), fix, measure (a "
      "finding has no saving estimate) or freeze.");
}

}  // namespace fastenough::bindings
