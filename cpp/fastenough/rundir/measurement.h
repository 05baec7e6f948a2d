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

#include "fastenough/report/run_blocks.h"
#include "fastenough/rundir/agent_records.h"
#include "fastenough/rundir/step_summary.h"

namespace fastenough::rundir {

// Fewer steady steps than this and steady figures rest on too little.
inline constexpr int64_t kMinSteadySteps = 10;

using MeasurementReason = report::MeasurementReason;  // report/run_blocks.h
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

using Measurement = report::Measurement;  // report/run_blocks.h
Measurement AssessMeasurement(const MeasurementInputs& in);

// A reason found after the assessment (a finding the machine explains:
// scheduler_wait.h): listed, and the status no better than its level.
void AddMeasurementReason(Measurement& m, const char* code, const char* level,
                          std::string text);

// The report's "measurement" object as a document of its own (tests); the
// report writes it from its declaration (report/fields/run_fields.h).
std::string MeasurementJson(const Measurement& m);

}  // namespace fastenough::rundir
