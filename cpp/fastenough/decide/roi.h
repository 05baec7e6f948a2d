// Return on investment of a candidate fix (docs/method.md, Stop):
// remaining runs x time saved per run, against the hours of development,
// verification and maintenance. One-time costs per run (load, preparation,
// first compile/warmup) are counted in the run's length but a per-step saving
// does not shrink them: only steady steps get faster.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastenough::decide {

// The run's measured figures, from report.json.
struct RunFigures {
  double steady_step_ns = 0;  // median steady step
  int64_t steps_per_run = 0;  // steps one run executes
  double load_ns = 0;         // one-time: model/data loading
  double prepare_ns = 0;      // one-time: per-config preparation
  double compile_ns = 0;      // one-time: first compile / warmup
  double startup_ns = 0;      // one-time: interpreter, imports, set-up before the first phase
  // The whole run as measured (the supervisor's wall clock); 0: unknown.
  // What it holds beyond the steps and the phases above (the exit, scoring,
  // work in no phase) is one-time too: no per-step fix shrinks it.
  double wall_ns = 0;
};

struct FixPlan {
  std::string code;             // finding code
  double saving_per_step_ns = 0;  // upper bound from the finding
  double dev_hours = -1;        // -1 = not given
  double verify_hours = 0;
  double maint_hours = 0;
};

struct Plan {
  int64_t remaining_runs = 0;
  double wait_hour_value = 1.0;  // value of an hour of waiting, in hours of work
  // A fix with no stated cost is not worth it when it saves less than this:
  // no change is made, verified and maintained in under a quarter hour.
  double min_fix_hours = 0.25;
};

enum class Verdict { kDoIt, kWithinBudget, kNotWorthIt };
const char* VerdictName(Verdict v);

// What to do next, the first that applies (issue 37): a finding that changes
// the program's results is fixed before anything is priced; a fix that pays is
// made; a finding with no saving estimate is measured (fastenough ab), not
// taken for zero; only when none of these remain is the version frozen.
enum class Recommendation { kFixFirst, kFix, kMeasure, kFreeze };
const char* RecommendationName(Recommendation r);  // fix-first, fix, measure, freeze

// The run's open findings beside the priced fixes: every code not `bounded`
// (avoidable or a suspicion), and the avoidable codes without a saving estimate.
struct OpenFindings {
  std::vector<std::string> codes;
  std::vector<std::string> unpriced;
};

struct FixDecision {
  std::string code;
  double saving_per_run_ns = 0;  // capped at the run's steady time
  double hours_saved = 0;        // over the remaining runs, in work hours
  double cost_hours = -1;        // -1 = not given
  double budget_hours = 0;       // the most the fix may cost to pay for itself
  double share_of_run = 0;       // saving / whole run including one-time costs
  Verdict verdict = Verdict::kNotWorthIt;
  std::string arithmetic;        // the sum, in words and numbers
};

struct Decision {
  double run_ns = 0;        // one run: the measured wall time, else one-time costs + steps
  double one_time_ns = 0;
  double other_ns = 0;      // the part of one_time_ns in no named phase (wall - the rest)
  std::string one_time_text;  // "start-up 13.43 s, load 660.0 ms, ..." ("" when none)
  // The priced fixes, less those in fix_first (a fix that changes results is
  // not weighed against its hours: it comes first).
  std::vector<FixDecision> fixes;
  bool any_pays = false;  // a fix in `fixes` pays (do-it or within budget)
  // Open codes whose catalog entry changes results (train-mode-in-eval), in
  // the order given; each once.
  std::vector<std::string> fix_first;
  // Unpriced codes not in fix_first: measure them before and after the fix.
  std::vector<std::string> measure;
  Recommendation recommendation = Recommendation::kFreeze;
};

Decision Decide(const RunFigures& run, const Plan& plan, const std::vector<FixPlan>& fixes,
                const OpenFindings& open = {});

// Hours as given, without rounding them away: 0.05 -> "0.05", 2 -> "2".
std::string FormatHours(double hours);

}  // namespace fastenough::decide
