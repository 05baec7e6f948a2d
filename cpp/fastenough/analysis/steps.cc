#include "fastenough/analysis/steps.h"

namespace fastenough::analysis {

StepStats AnalyzeSteps(std::vector<timeline::StepWindow> windows,
                       const timeline::IntervalSet& busy_all) {
  StepStats s;
  s.steps.reserve(windows.size());
  std::vector<int64_t> durations;
  durations.reserve(windows.size());
  for (const auto& w : windows) {
    s.steps.push_back({w, busy_all.LengthWithin(w.start_ns, w.end_ns)});
    durations.push_back(w.dur_ns());
  }
  s.steady_begin = s.steps.size() >= 3 ? 1 : 0;
  std::vector<int64_t> steady(durations.begin() + static_cast<long>(s.steady_begin),
                              durations.end());
  s.duration = Summarize(durations);
  s.steady_duration = Summarize(steady);
  return s;
}

}  // namespace fastenough::analysis
