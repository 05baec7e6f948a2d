#include "fastenough/analysis/device_turns.h"

#include <algorithm>

namespace fastenough::analysis {

int64_t DeviceTurns::max_busy_ns() const {
  return busy_ns.empty() ? 0 : *std::max_element(busy_ns.begin(), busy_ns.end());
}

int64_t DeviceTurns::overlap_bound_ns() const {
  return std::max<int64_t>(0, all_busy_ns + some_busy_ns - max_busy_ns());
}

DeviceTurns TurnsOf(const std::vector<int32_t>& ids, const std::vector<timeline::IntervalSet>& busy,
                    const timeline::IntervalSet& window, int64_t windows) {
  DeviceTurns t;
  std::vector<timeline::IntervalSet> at_work;
  for (size_t i = 0; i < ids.size() && i < busy.size(); ++i) {
    timeline::IntervalSet b = timeline::Intersect(busy[i], window);
    if (b.empty()) continue;
    t.devices.push_back(ids[i]);
    t.busy_ns.push_back(b.TotalLength());
    at_work.push_back(std::move(b));
  }
  if (at_work.size() < 2) return DeviceTurns{};
  timeline::IntervalSet any = at_work.front(), all = at_work.front();
  for (size_t i = 1; i < at_work.size(); ++i) {
    any = timeline::Union(any, at_work[i]);
    all = timeline::Intersect(all, at_work[i]);
  }
  t.windows = windows;
  t.window_ns = window.TotalLength();
  t.all_busy_ns = all.TotalLength();
  t.turns = timeline::Subtract(any, all);
  t.some_busy_ns = t.turns.TotalLength();
  t.all_idle_ns = t.window_ns - any.TotalLength();
  return t;
}

DeviceTurns AnalyzeDeviceTurns(const std::vector<DeviceBreakdown>& devices,
                               const std::vector<timeline::StepWindow>& windows) {
  std::vector<timeline::Interval> spans;
  for (const auto& w : windows) {
    if (w.end_ns > w.start_ns) spans.push_back({w.start_ns, w.end_ns});
  }
  const auto count = static_cast<int64_t>(spans.size());
  std::vector<int32_t> ids;
  std::vector<timeline::IntervalSet> busy;
  for (const auto& d : devices) {
    ids.push_back(d.device);
    busy.push_back(d.busy);
  }
  return TurnsOf(ids, busy, timeline::IntervalSet::FromUnsorted(std::move(spans)), count);
}

}  // namespace fastenough::analysis
