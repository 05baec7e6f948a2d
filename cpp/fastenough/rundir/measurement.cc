#include "fastenough/rundir/measurement.h"

#include <algorithm>

#include "fastenough/report/fields/json_fields.h"
#include "fastenough/report/fields/run_fields.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/util/units.h"

namespace fastenough::rundir {

void AddMeasurementReason(Measurement& m, const char* code, const char* level,
                          std::string text) {
  m.reasons.push_back({code, level, std::move(text)});
  if (std::string_view(level) == "blind") {
    m.status = "blind";
  } else if (m.status == "complete") {
    m.status = "partial";
  }
}

namespace {

void Add(Measurement& m, const char* code, const char* level, std::string text) {
  AddMeasurementReason(m, code, level, std::move(text));
}

}  // namespace

Measurement AssessMeasurement(const MeasurementInputs& in) {
  Measurement m;
  std::vector<const AgentRecord*> loop;
  for (const AgentRecord& a : in.agents) {
    if (a.in_the_loop()) loop.push_back(&a);
  }
  m.processes = static_cast<int>(loop.size());
  for (const StepSummary& s : in.steps) m.steady_steps += s.count;
  if (loop.empty()) {
    Add(m, "no-agent", "blind",
        "no Python process of the run loaded the agent (not a Python program, or its "
        "PYTHONPATH/sitecustomize was replaced): nothing was measured inside the program");
    return m;
  }
  int64_t steps = 0;
  bool any_torch = false;
  for (const AgentRecord* a : loop) {
    m.tool_pause_ns += a->tool_pause_ns;
    m.tool_pauses += a->tool_pauses;
    m.profile_cost_ns += a->profile_cost_ns;
    if (a->profile_peak_rss_rise >= m.profile_peak_rss_rise) {
      m.profile_peak_rss_rise = a->profile_peak_rss_rise;
      m.profile_memory_bound = a->profile_memory_bound;
    }
    if (m.profile_stopped_early.empty()) m.profile_stopped_early = a->profile_stopped_early;
    if (m.profile_mode.empty() && a->traced) m.profile_mode = a->profile_mode;
    if (m.profile_moved.empty()) m.profile_moved = a->profile_moved;
    if (m.profile_not_moved.empty()) m.profile_not_moved = a->profile_not_moved;
    steps += a->steps;
    const std::string who = loop.size() > 1 ? "process " + std::to_string(a->pid) + ": " : "";
    if (a->torch) {
      any_torch = true;
    } else if (a->torch_imported_unseen) {
      Add(m, "torch-unseen", "blind",
          who + "the program imported torch in a way the agent did not see (a custom "
                "importer): no phases, steps or checks were recorded");
    }
    if (!a->agent_error.empty()) {
      // The own-cost guard (agent/own_cost.py) switches the agent off on purpose
      // (own_cost.switched_off), and calling it an error would send the user to
      // report a bug where the agent did what it promises.
      const bool own_cost = a->own_cost_off;
      Add(m, "agent-off", "partial",
          who + (own_cost ? "the agent switched itself off because its own cost grew ("
                          : "the agent switched itself off after an internal error (") +
              a->agent_error + "): what came after it was not measured");
    }
  }
  if (!any_torch) {
    bool unseen = false;
    for (const auto& r : m.reasons) unseen = unseen || r.code == "torch-unseen";
    if (!unseen) {
      Add(m, "no-torch", "blind",
          "the program never imported torch: there were no phases, steps or checks to "
          "measure, only the process from outside");
    }
    return m;
  }
  bool checks_on = false;
  bool timing_only = false;
  for (const AgentRecord* a : loop) {
    checks_on = checks_on || (a->checks && a->torch);
    timing_only = timing_only || a->timing_only;
  }
  if (timing_only) {
    // Asked for (fastenough ab's timing runs): the agent counted and timed steps
    // and installed nothing else, so that its cost per step does not depend on
    // what the program does. No finding of the checks or the trace was looked
    // for; their absence says nothing about the program.
    Add(m, "checks-off", "partial",
        "fastenough run --timing-only: the agent counted and timed the steps and ran no "
        "checks and no profiler window, so the runtime checks' findings (autograd or train "
        "mode in evaluation, logits, padding, syncs, duplicated weights, ...) and the trace's "
        "were not looked for: their absence here says nothing about the program");
  } else if (!in.checks_error.empty()) {
    Add(m, "checks-stopped", "partial",
        "the runtime checks stopped (" + in.checks_error + "): their findings are missing");
  } else if (checks_on && !in.checks_file) {
    Add(m, "checks-missing", "partial",
        "checks.json is missing (the process ended without its exit handlers): the runtime "
        "checks' findings are missing");
  }
  if (steps == 0) {
    Add(m, "no-steps", "blind",
        "no step was found (no model call, DataLoader batch, optimizer step or "
        "fastenough.step()): there are no steady figures and no per-step savings");
    return m;
  }
  if (m.steady_steps < kMinSteadySteps) {
    Add(m, "few-steady-steps", "partial",
        "only " + std::to_string(m.steady_steps) + " steady step" +
            (m.steady_steps == 1 ? "" : "s") + " were measured (of " + std::to_string(steps) +
            "): steady figures and savings rest on too few steps; run more steps");
  }
  for (const StepSummary& s : in.steps) {
    if (!s.trend.drifts) continue;
    const std::string who = (in.steps.size() > 1 ? "rank " + std::to_string(s.rank) + "'s " : "") +
                            (s.mode.empty() ? "" : s.mode + " ");
    Add(m, "steps-drift", "partial",
        "the steady " + who + "steps slowed down as the run went on, " +
            "from " + util::FormatDuration(static_cast<double>(s.trend.head_median_ns)) +
            " (median of the first third) to " +
            util::FormatDuration(static_cast<double>(s.trend.tail_median_ns)) +
            " (the last third's) over " + std::to_string(s.trend.steps) + " steps: no steady " +
            "state, so the steady figures describe none of it (the program's own work grows, "
            "or something slows it: the machine, or a tool inside it); the step-time plot of "
            "the HTML report shows when");
  }
  if (in.trace_wanted && in.traces_analysed == 0) {
    std::string why;
    for (const AgentRecord* a : loop) {
      if (why.empty() && !a->profile_skipped.empty()) why = a->profile_skipped;
    }
    Add(m, "no-trace", "partial",
        why.empty() ? "no profiler window was analysed (the run reached too few steady steps, or "
                      "its trace could not be read): the trace findings are missing"
                    : why + ": the trace findings are missing");
  }
  if (!in.trace_data_lost.empty()) {
    std::string what;
    for (const std::string& c : in.trace_data_lost) what += (what.empty() ? "" : ", ") + c;
    Add(m, "trace-data-lost", "partial",
        "the trace lost events or fields while it was read (" + what +
            "): its figures and findings cover only what could be used");
  }
  return m;
}

std::string MeasurementJson(const Measurement& m) {
  report::JsonWriter w(1);
  report::fields::WriteObject(w, m);  // report/fields/run_fields.h
  return w.Take();
}

}  // namespace fastenough::rundir
