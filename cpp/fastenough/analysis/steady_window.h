// The time the per-step analyses measure over: the steady ProfilerStep#N
// windows (StepStats::steady_begin on), or, for a trace without steps, one
// window from the first to the last event that is not of an unknown kind
// (the rule findings/DetectContext applies, so findings and the deeper
// analyses speak of the same time).
#pragma once

#include <vector>

#include "fastenough/analysis/steps.h"
#include "fastenough/timeline/step_windows.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

// Time order; each window keeps its ProfilerStep number (-1 for the whole trace).
std::vector<timeline::StepWindow> SteadyWindows(const trace::EventStore& store,
                                                const StepStats& steps);

// Index of the window of `windows` (time order, disjoint) that holds t; -1 when none.
int WindowOf(const std::vector<timeline::StepWindow>& windows, int64_t t);

}  // namespace fastenough::analysis
