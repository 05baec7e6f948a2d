#include "fastenough/analysis/device_turns.h"

#include <algorithm>

namespace fastenough::analysis {

int64_t DeviceTurns::max_busy_ns() const {
  return busy_ns.empty() ? 0 : *std::max_element(busy_ns.begin(), busy_ns.end());
}

int64_t DeviceTurns::overlap_bound_ns() const {
  return std::max<int64_t>(0, all_busy_ns + some_busy_ns - max_busy_ns());
}

DeviceTurns AnalyzeDeviceTurns(const std::vector<DeviceBreakdown>& devices,
                               const std::vector<timeline::StepWindow>& windows) {
  DeviceTurns t;
  std::vector<timeline::Interval> spans;
  for (const auto& w : windows) {
    if (w.end_ns > w.start_ns) spans.push_back({w.start_ns, w.end_ns});
  }
  const timeline::IntervalSet in_windows = timeline::IntervalSet::FromUnsorted(spans);
  std::vector<timeline::IntervalSet> busy;
  for (const auto& d : devices) {
    timeline::IntervalSet b = timeline::Intersect(d.busy, in_windows);
    if (b.empty()) continue;
    t.devices.push_back(d.device);
    t.busy_ns.push_back(b.TotalLength());
    busy.push_back(std::move(b));
  }
  if (busy.size() < 2) return DeviceTurns{};
  timeline::IntervalSet any = busy.front(), all = busy.front();
  for (size_t i = 1; i < busy.size(); ++i) {
    any = timeline::Union(any, busy[i]);
    all = timeline::Intersect(all, busy[i]);
  }
  t.windows = static_cast<int64_t>(spans.size());
  t.window_ns = in_windows.TotalLength();
  t.all_busy_ns = all.TotalLength();
  t.turns = timeline::Subtract(any, all);
  t.some_busy_ns = t.turns.TotalLength();
  t.all_idle_ns = t.window_ns - any.TotalLength();
  return t;
}

}  // namespace fastenough::analysis
