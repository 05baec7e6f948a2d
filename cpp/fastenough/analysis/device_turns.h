// Several devices in one process (a model's layers placed across cards by
// hand or by `device_map="auto"`, stages of a pipeline driven by one process):
// over the steady windows, how long all of them worked at once, how long some
// worked while the others waited for them (the devices take turns), and how
// long none worked. docs/method.md: layer placement spreads storage, it
// is not pipeline parallelism, and "the two cards take turns" is not "both
// idle"; the first is fixed by overlapping batches across the stages, the
// second by feeding the devices.
//
// Upper bound of what overlapping could save: with the work of every device
// overlapped perfectly, the windows would last at least as long as the
// busiest device's work, plus the time none worked (not this analysis'
// business), so at most any_busy - max(busy_d) is saved.
#pragma once

#include <cstdint>
#include <vector>

#include "fastenough/analysis/device_breakdown.h"
#include "fastenough/timeline/interval_set.h"
#include "fastenough/timeline/step_windows.h"

namespace fastenough::analysis {

struct DeviceTurns {
  std::vector<int32_t> devices;  // device indices (ranks, for a job) with work in the windows
  std::vector<int64_t> busy_ns;  // each one's busy time in the windows, same order
  int64_t windows = 0;           // steady windows measured over
  int64_t window_ns = 0;         // their total length
  int64_t all_busy_ns = 0;       // every device worked
  int64_t some_busy_ns = 0;      // some worked, some waited: the devices took turns
  int64_t all_idle_ns = 0;       // none worked
  timeline::IntervalSet turns;   // the some_busy time (findings claim it); not serialised
  bool measured() const { return devices.size() >= 2 && window_ns > 0; }
  int64_t max_busy_ns() const;
  // any_busy - max(busy_d): the most overlapping the devices' work could save.
  int64_t overlap_bound_ns() const;
};

// Empty (not measured) with fewer than two devices at work in the windows.
DeviceTurns AnalyzeDeviceTurns(const std::vector<DeviceBreakdown>& devices,
                               const std::vector<timeline::StepWindow>& windows);

// The same split for any workers (devices, or the ranks of a pipeline job:
// findings/rank_turns.cc): ids[i] worked during busy[i]; measured over
// `window` (windows = how many steps it spans). Members without work in the
// window are left out; empty with fewer than two left.
DeviceTurns TurnsOf(const std::vector<int32_t>& ids, const std::vector<timeline::IntervalSet>& busy,
                    const timeline::IntervalSet& window, int64_t windows);

}  // namespace fastenough::analysis
