// The time a trace finding is about, over the steady steps: where the time
// its saving would come from lies. One rule per code (docs/trace-depth.md,
// "What a finding covers"); a code without a rule covers what its `where`
// names (the steady instances of those kernels and host ops), and a finding
// that names nothing covers nothing (an empty set).
//
// Used to measure the part of the critical path a finding covers
// (`critical_path_share`): a saving off the critical path shortens nothing,
// and two findings whose covered time overlaps on the path share it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "fastenough/findings/detect_context.h"
#include "fastenough/findings/finding.h"
#include "fastenough/timeline/interval_set.h"

namespace fastenough::findings {

// explained: the device idle the idle-explaining detectors claimed (DetectAll's
// set), which gpu-idle-host-bound leaves out of its own.
timeline::IntervalSet FindingCoverage(const DetectContext& ctx, const Finding& f,
                                      const timeline::IntervalSet& explained);

// Whether a code's saving comes from removing or shortening events (kernels,
// copies, host ops) rather than from a stretch of time (device idle, syncs,
// data loading), a limit (memory), or overlapping work (devices-take-turns).
bool IsAboutEvents(std::string_view code);

// The critical path's time on a finding's own events, over the path's window:
// path segments of its device ops (coverage rule above), of their launch calls
// and of the launch delays before them (not the kernel gaps: a stream that
// waited for what the graph does not hold, another stream without an event
// edge, another rank, a full queue, is not explained); for a code without a
// rule, of the kernels and host ops `where` names, everything inside those ops
// and the device ops they launched. nullopt when !IsAboutEvents(code).
// Unlike |path ∩ covered|, which counts whatever the path runs through during
// the covered time, this counts the finding's events only: a small kernel
// beside a long one on another stream is not on the path.
std::optional<int64_t> OwnCriticalPathTime(const DetectContext& ctx, const Finding& f);

}  // namespace fastenough::findings
