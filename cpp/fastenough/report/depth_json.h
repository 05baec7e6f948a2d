// The report keys of the deeper trace analyses (docs/trace-depth.md,
// docs/report-schema.md), written after `launch`:
//
//   step_breakdown  {categories: [...], per_rank: [{rank, whole_trace, steady_begin,
//                    steady_count, steady_mean: {<category>_ns..., step_ns},
//                    plugin_steady_count, plugin_steady_mean: {...}, worst_step,
//                    steps: [{number, start_ns, end_ns, dur_ns, <category>_ns...,
//                    plugin: {start_ns, end_ns, dur_ns, <category>_ns...} | null}]}]}
//   efficiency      {has_launch_args, devices: [{rank, device, num_sms, max_warps_per_sm,
//                    steady: {<figures>}, steps: [{number, <the four ratios>}]}],
//                    kernels: [top kernels by steady time, with their launch figures]}
//   memory          [{rank, device, ..., peak, lifetimes, steps, timeline}]
//   critical_path   {per_rank: [{rank, status, ..., streams, top, steps}]}
//   graphs          {per_rank: [{rank, launch_count, ..., compiled_regions: [...]}]}
//   device_turns    {per_rank: [{rank, devices, busy_ns, windows, window_ns, all_busy_ns,
//                    taking_turns_ns, all_idle_ns, overlap_bound_ns}]}: ranks with
//                    several devices at work in the steady windows (device_turns.h)
// Absent figures are null. Empty lists when the trace has no such data.
#pragma once

#include "fastenough/report/json_writer.h"
#include "fastenough/report/report.h"

namespace fastenough::report {

// Rows of `efficiency.kernels` kept (over all ranks and devices).
constexpr size_t kEfficiencyKernelRows = 10;

void WriteDepth(JsonWriter& w, const Report& r);

// One rank's objects in those keys, as the report writes them (a rank summary,
// report/rank_summary_json.h, writes the same). Has*: whether the rank has an
// entry in step_breakdown.per_rank, critical_path.per_rank, graphs.per_rank.
bool HasStepBreakdown(const analysis::RankAnalysis& ra);
bool HasCriticalPath(const analysis::RankAnalysis& ra);
bool HasGraphs(const analysis::RankAnalysis& ra);
void WriteRankStepBreakdown(JsonWriter& w, const analysis::RankAnalysis& ra);
void WriteEfficiencyDevice(JsonWriter& w, const analysis::RankAnalysis& ra,
                           const analysis::DeviceEfficiency& d);  // efficiency.devices[]
void WriteEfficiencyKernel(JsonWriter& w, int rank, const analysis::KernelOccupancy& k);
void WriteMemoryRow(JsonWriter& w, int rank, const analysis::MemoryTimeline& m);  // memory[]
void WriteRankCriticalPath(JsonWriter& w, const analysis::RankAnalysis& ra);
void WriteRankGraphs(JsonWriter& w, const analysis::RankAnalysis& ra);
void WriteRankDeviceTurns(JsonWriter& w, const analysis::RankAnalysis& ra);

}  // namespace fastenough::report
