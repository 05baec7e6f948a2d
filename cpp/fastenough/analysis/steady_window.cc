#include "fastenough/analysis/steady_window.h"

#include <algorithm>
#include <limits>

namespace fastenough::analysis {

std::vector<timeline::StepWindow> SteadyWindows(const trace::EventStore& s, const StepStats& steps) {
  std::vector<timeline::StepWindow> out;
  for (size_t i = steps.steady_begin; i < steps.steps.size(); ++i) out.push_back(steps.steps[i].window);
  if (!out.empty()) return out;
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] == trace::EventKind::kOther) continue;
    lo = std::min(lo, s.ts_ns[i]);
    hi = std::max(hi, s.end_ns(i));
  }
  if (lo < hi) out.push_back({-1, lo, hi, 0});
  return out;
}

int WindowOf(const std::vector<timeline::StepWindow>& w, int64_t t) {
  auto it = std::upper_bound(w.begin(), w.end(), t,
                             [](int64_t x, const timeline::StepWindow& s) { return x < s.start_ns; });
  if (it == w.begin()) return -1;
  --it;
  return t < it->end_ns ? static_cast<int>(it - w.begin()) : -1;
}

}  // namespace fastenough::analysis
