#include "fastenough/decide/roi.h"

#include <algorithm>
#include <cstdio>

namespace fastenough::decide {

namespace {
constexpr double kNsPerHour = 3.6e12;

std::string Fmt(const char* f, double a, double b = 0, double c = 0, double d = 0,
                double e = 0) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a, b, c, d, e);
  return buf;
}
}  // namespace

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kDoIt: return "do-it";
    case Verdict::kWithinBudget: return "within-budget";
    case Verdict::kNotWorthIt: return "not-worth-it";
  }
  return "?";
}

Decision Decide(const RunFigures& run, const Plan& plan, const std::vector<FixPlan>& fixes) {
  Decision out;
  const double steady_ns = run.steady_step_ns * static_cast<double>(run.steps_per_run);
  out.one_time_ns = run.load_ns + run.prepare_ns + run.compile_ns;
  out.run_ns = out.one_time_ns + steady_ns;
  for (const FixPlan& f : fixes) {
    FixDecision d;
    d.code = f.code;
    // A per-step fix shrinks steady steps only, never more than all of them.
    const double per_step = std::clamp(f.saving_per_step_ns, 0.0, run.steady_step_ns);
    d.saving_per_run_ns = per_step * static_cast<double>(run.steps_per_run);
    d.share_of_run = out.run_ns > 0 ? d.saving_per_run_ns / out.run_ns : 0;
    d.hours_saved = d.saving_per_run_ns * static_cast<double>(plan.remaining_runs) / kNsPerHour *
                    plan.wait_hour_value;
    d.budget_hours = d.hours_saved;
    std::string sum = Fmt("%.0f runs x %.1f ms/step x %.0f steps", double(plan.remaining_runs),
                          per_step / 1e6, double(run.steps_per_run));
    if (plan.wait_hour_value != 1.0) sum += Fmt(" x %.2f (value of a waiting hour)", plan.wait_hour_value);
    sum += Fmt(" = %.3f h saved (%.1f%% of a %.1f s run, of which %.1f s one-time load/prepare/compile)",
               d.hours_saved, 100 * d.share_of_run, out.run_ns / 1e9, out.one_time_ns / 1e9);
    if (f.dev_hours < 0) {
      const bool enough = d.hours_saved >= plan.min_fix_hours;
      d.verdict = enough ? Verdict::kWithinBudget : Verdict::kNotWorthIt;
      sum += enough ? Fmt("; cost not given: worth it only within %.3f h", d.budget_hours)
                    : Fmt("; cost not given, and under %.2f h saved: less than any fix takes "
                          "to make, verify and maintain", plan.min_fix_hours);
    } else {
      d.cost_hours = f.dev_hours + f.verify_hours + f.maint_hours;
      d.verdict = d.hours_saved > d.cost_hours ? Verdict::kDoIt : Verdict::kNotWorthIt;
      sum += Fmt("; cost %.1f dev + %.1f verify + %.1f maint = %.1f h", f.dev_hours,
                 f.verify_hours, f.maint_hours, d.cost_hours);
      sum += d.verdict == Verdict::kDoIt ? " < saved" : " >= saved";
    }
    d.arithmetic = sum;
    out.any_pays = out.any_pays || d.verdict != Verdict::kNotWorthIt;
    out.fixes.push_back(d);
  }
  return out;
}

}  // namespace fastenough::decide
