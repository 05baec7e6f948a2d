// Step statistics from the ProfilerStep#N windows of one rank.
#pragma once

#include <cstdint>
#include <vector>

#include "fastenough/analysis/statistics.h"
#include "fastenough/timeline/interval_set.h"
#include "fastenough/timeline/step_windows.h"

namespace fastenough::analysis {

struct StepRow {
  timeline::StepWindow window;
  int64_t device_busy_ns = 0;  // |union of device activity of all devices| inside the window
};

struct StepStats {
  std::vector<StepRow> steps;  // in time order
  Distribution duration;       // over all steps
  // Steady steps: [steady_begin, steps.size()). The first step carries
  // warm-up (allocator growth, cudnn autotuning, lazy init), so with three or
  // more steps it is left out; with one or two every step counts.
  size_t steady_begin = 0;
  Distribution steady_duration;
};

// busy_all: the union of device activity of every device of the rank.
StepStats AnalyzeSteps(std::vector<timeline::StepWindow> windows,
                       const timeline::IntervalSet& busy_all);

}  // namespace fastenough::analysis
