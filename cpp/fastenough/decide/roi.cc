#include "fastenough/decide/roi.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "fastenough/findings/catalog.h"
#include "fastenough/util/units.h"

namespace fastenough::decide {

namespace {
constexpr double kNsPerHour = 3.6e12;

std::string Fmt(const char* f, double a, double b = 0, double c = 0, double d = 0,
                double e = 0) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a, b, c, d, e);
  return buf;
}

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The catalog is the one place that says which findings change results.
bool ChangesResults(const std::string& code) {
  const findings::CatalogEntry* e = findings::FindCatalogEntry(code);
  return e != nullptr && e->changes_results;
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

const char* RecommendationName(Recommendation r) {
  switch (r) {
    case Recommendation::kFixFirst: return "fix-first";
    case Recommendation::kFix: return "fix";
    case Recommendation::kMeasure: return "measure";
    case Recommendation::kFreeze: return "freeze";
  }
  return "?";
}

std::string FormatHours(double hours) { return Fmt("%.4g", hours); }

Decision Decide(const RunFigures& run, const Plan& plan, const std::vector<FixPlan>& fixes,
                const OpenFindings& open) {
  Decision out;
  auto add_first = [&out](const std::string& code) {
    if (ChangesResults(code) && !Contains(out.fix_first, code)) out.fix_first.push_back(code);
  };
  for (const std::string& code : open.codes) add_first(code);
  for (const std::string& code : open.unpriced) add_first(code);
  for (const FixPlan& f : fixes) add_first(f.code);
  for (const std::string& code : open.unpriced) {
    if (!Contains(out.fix_first, code) && !Contains(out.measure, code)) out.measure.push_back(code);
  }
  const double steady_ns = run.steady_step_ns * static_cast<double>(run.steps_per_run);
  const double named_ns = run.load_ns + run.prepare_ns + run.compile_ns + run.startup_ns;
  // The measured run when there is one: a run of 51.7 s with 13.4 s of
  // start-up is not "31.4 s" (issue 24).
  out.other_ns = std::max(0.0, run.wall_ns - steady_ns - named_ns);
  out.one_time_ns = named_ns + out.other_ns;
  out.run_ns = out.one_time_ns + steady_ns;
  std::string one_time_parts;
  for (const auto& [name, ns] : {std::pair<const char*, double>{"start-up", run.startup_ns},
                                 {"load", run.load_ns},
                                 {"prepare", run.prepare_ns},
                                 {"compile/warm-up", run.compile_ns},
                                 {"outside the steps and phases", out.other_ns}}) {
    if (ns <= 0) continue;
    one_time_parts += (one_time_parts.empty() ? "" : ", ") + std::string(name) + " " +
                      util::FormatDuration(ns);
  }
  out.one_time_text = one_time_parts;
  for (const FixPlan& f : fixes) {
    if (Contains(out.fix_first, f.code)) continue;  // not a question of hours
    FixDecision d;
    d.code = f.code;
    // A per-step fix shrinks steady steps only, never more than all of them.
    const double per_step = std::clamp(f.saving_per_step_ns, 0.0, run.steady_step_ns);
    d.saving_per_run_ns = per_step * static_cast<double>(run.steps_per_run);
    d.share_of_run = out.run_ns > 0 ? d.saving_per_run_ns / out.run_ns : 0;
    d.hours_saved = d.saving_per_run_ns * static_cast<double>(plan.remaining_runs) / kNsPerHour *
                    plan.wait_hour_value;
    d.budget_hours = d.hours_saved;
    std::string sum = Fmt("%.0f runs x ", double(plan.remaining_runs)) + util::FormatDuration(per_step) +
                      Fmt("/step x %.0f steps", double(run.steps_per_run));
    if (plan.wait_hour_value != 1.0) sum += Fmt(" x %.2f (value of a waiting hour)", plan.wait_hour_value);
    // The one-time parts are named once, in out.one_time_text, not in every sum.
    sum += " = " + FormatHours(d.hours_saved) + " h saved (" + util::FormatShare(d.share_of_run) +
           " of a " + util::FormatDuration(out.run_ns) + " run" +
           (out.one_time_ns > 0 ? ", of which " + util::FormatDuration(out.one_time_ns) + " one-time"
                                : std::string()) +
           ")";
    if (f.dev_hours < 0) {
      const bool enough = d.hours_saved >= plan.min_fix_hours;
      d.verdict = enough ? Verdict::kWithinBudget : Verdict::kNotWorthIt;
      sum += enough ? "; cost not given: worth it only within " + FormatHours(d.budget_hours) + " h"
                    : Fmt("; cost not given, and under %.2f h saved: less than any fix takes "
                          "to make, verify and maintain", plan.min_fix_hours);
    } else {
      d.cost_hours = f.dev_hours + f.verify_hours + f.maint_hours;
      d.verdict = d.hours_saved > d.cost_hours ? Verdict::kDoIt : Verdict::kNotWorthIt;
      sum += "; cost " + FormatHours(f.dev_hours) + " dev + " + FormatHours(f.verify_hours) +
             " verify + " + FormatHours(f.maint_hours) + " maint = " + FormatHours(d.cost_hours) +
             " h";
      sum += d.verdict == Verdict::kDoIt ? " < saved" : " >= saved";
    }
    d.arithmetic = sum;
    out.any_pays = out.any_pays || d.verdict != Verdict::kNotWorthIt;
    out.fixes.push_back(d);
  }
  out.recommendation = !out.fix_first.empty() ? Recommendation::kFixFirst
                       : out.any_pays         ? Recommendation::kFix
                       : !out.measure.empty() ? Recommendation::kMeasure
                                              : Recommendation::kFreeze;
  return out;
}

}  // namespace fastenough::decide
