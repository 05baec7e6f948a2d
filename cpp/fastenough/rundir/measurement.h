// What the run's measurement saw, and what it did not: the "measurement" block
// of a run report. A report of a run the agent never saw (torch imported in a
// way it missed, the agent or its checks switched off, no step found, a handful
// of steady steps) must say so before anything else, and must not read as a
// clean bill of health: "no findings" means something only when every source
// ran and saw steady steps.
//
//   "measurement": {"status": "complete" | "partial" | "blind",
//                   "reasons": [{"code": "torch-unseen", "level": "blind",
//                                "text": "..."}],
//                   "processes": 1, "steady_steps": 120,
//                   "tool_pause_ns": .., "tool_pauses": 4, "profile_cost_ns": ..,
//                   "profile_peak_rss_rise_bytes": ..}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/report/json_writer.h"
#include "fastenough/rundir/agent_records.h"
#include "fastenough/rundir/step_summary.h"

namespace fastenough::rundir {

// Fewer steady steps than this and steady figures rest on too little.
inline constexpr int64_t kMinSteadySteps = 10;

struct MeasurementReason {
  std::string code;   // no-agent | no-torch | torch-unseen | agent-off | checks-stopped |
                      // checks-missing | no-steps | few-steady-steps | steps-drift |
                      // no-trace | trace-data-lost
  std::string level;  // blind: nothing of that kind was measured; partial: some was
  std::string text;
};

struct MeasurementInputs {
  std::vector<AgentRecord> agents;
  std::vector<StepSummary> steps;
  bool checks_file = false;   // checks.json present
  std::string checks_error;   // "" when the checks ran to the end
  bool trace_wanted = true;   // the run asked for a profiler window
  int traces_analysed = 0;
  // Trace-reading counters of data-loss or error severity that were raised
  // ("duration_unusable: 3"): the trace's figures cover only what was read.
  std::vector<std::string> trace_data_lost;
};

struct Measurement {
  std::string status = "complete";
  std::vector<MeasurementReason> reasons;
  int processes = 0;  // processes in the loop (main or rank) the agent saw
  int64_t steady_steps = 0;
  int64_t tool_pause_ns = 0, tool_pauses = 0, profile_cost_ns = 0;
  // The agent's own memory: the most its profiler window raised a process's peak RSS.
  int64_t profile_peak_rss_rise = 0;
  // The agent's memory bound for that process (+5% or +64 MiB); a rise above it
  // is said in the report (torch's profiler grows when it stops, after the
  // window's last check).
  int64_t profile_memory_bound = 0;
  std::string profile_stopped_early;  // the first process's reason, when its window ended early
  std::string profile_mode;   // the mode of the steps the window profiled
  std::string profile_moved;  // why the window ran again on other steps (agent/window_plan.py)
  std::string profile_not_moved;  // why it did not run again there (the memory bound)
};

Measurement AssessMeasurement(const MeasurementInputs& in);

// The report's "measurement" object, written where the writer stands.
void WriteMeasurement(report::JsonWriter& w, const Measurement& m);
// The same object as a document of its own (tests).
std::string MeasurementJson(const Measurement& m);

}  // namespace fastenough::rundir
