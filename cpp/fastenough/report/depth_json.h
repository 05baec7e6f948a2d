// The report keys of the deeper trace analyses (docs/trace-depth.md,
// docs/report-schema.md), written after `launch`:
//
//   step_breakdown  {categories: [...], per_rank: [{rank, whole_trace, steady_begin,
//                    steady_count, steady_mean: {<category>_ns..., step_ns},
//                    plugin_steady_count, plugin_steady_mean: {...}, worst_step,
//                    omitted?, steps: [{number, start_ns, end_ns, dur_ns, <category>_ns...,
//                    plugin: {start_ns, end_ns, dur_ns, <category>_ns...} | null}]}]}
//   efficiency      {has_launch_args, devices: [{rank, device, num_sms, max_warps_per_sm,
//                    steady: {<figures>}, omitted?, steps: [{number, <the four ratios>}]}],
//                    kernels: [top kernels by steady time, with their launch figures]}
//   memory          [{rank, device, ..., peak, lifetimes, omitted?, steps, timeline}]
// Per-step lists hold the steps row_bound.h keeps, with `omitted` when some are
// left out; efficiency.devices and memory hold the devices it keeps.
//   critical_path   {per_rank: [{rank, status, ..., streams, top, steps}]}
//   graphs          {per_rank: [{rank, launch_count, ..., compiled_regions: [...]}]}
//   device_turns    {per_rank: [{rank, devices, busy_ns, windows, window_ns, all_busy_ns,
//                    taking_turns_ns, all_idle_ns, overlap_bound_ns, omitted?}]}: ranks with
//                    several devices at work in the steady windows (device_turns.h)
// Absent figures are null. Empty lists when the trace has no such data.
#pragma once

#include <string>
#include <vector>

#include "fastenough/report/json_writer.h"
#include "fastenough/report/report.h"
#include "fastenough/report/row_bound.h"

namespace fastenough::report {

// Rows of `efficiency.kernels` kept (over all ranks and devices).
constexpr size_t kEfficiencyKernelRows = 10;

// rows[i]: what the report lists of r.ranks[i] (row_bound.h).
// The values the report's declaration (fields/report_object_fields.h) writes
// by code, key by key: the lists of step_breakdown, efficiency, memory,
// critical_path, graphs and device_turns, and the sums over ranks; rows: each
// rank's listed rows (row_bound.h).
std::vector<std::string> StepCategories();  // step_breakdown.categories
void WriteStepBreakdownRanks(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows);
bool HasLaunchArgs(const Report& r);        // efficiency.has_launch_args
void WriteEfficiencyDevices(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows);
void WriteEfficiencyKernels(JsonWriter& w, const Report& r);
void WriteMemoryValue(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows);
void WriteCriticalPathRanks(JsonWriter& w, const Report& r);
void WriteGraphsRanks(JsonWriter& w, const Report& r);
void WriteDeviceTurnsRanks(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows);

// One rank's objects in those keys, as the report writes them (a rank summary,
// report/rank_summary_json.h, writes the same). Has*: whether the rank has an
// entry in step_breakdown.per_rank, critical_path.per_rank, graphs.per_rank.
// rows: the rank's rows the report lists (row_bound.h); null: every row.
bool HasStepBreakdown(const analysis::RankAnalysis& ra);
bool HasCriticalPath(const analysis::RankAnalysis& ra);
bool HasGraphs(const analysis::RankAnalysis& ra);
void WriteRankStepBreakdown(JsonWriter& w, const analysis::RankAnalysis& ra,
                            const RankRows* rows = nullptr);
void WriteEfficiencyDevice(JsonWriter& w, const analysis::RankAnalysis& ra,
                           const analysis::DeviceEfficiency& d,
                           const RankRows* rows = nullptr);  // efficiency.devices[]
void WriteEfficiencyKernel(JsonWriter& w, int rank, const analysis::KernelOccupancy& k);
void WriteMemoryRow(JsonWriter& w, int rank, const analysis::MemoryTimeline& m,
                    const RankRows* rows = nullptr);  // memory[]
// Whether the report lists memory row m (row_bound.h: a CUDA device's row when
// the device is listed; other rows always).
bool KeepsMemoryRow(const RankRows& rows, const analysis::MemoryTimeline& m);
void WriteRankCriticalPath(JsonWriter& w, const analysis::RankAnalysis& ra);
void WriteRankGraphs(JsonWriter& w, const analysis::RankAnalysis& ra);
void WriteRankDeviceTurns(JsonWriter& w, const analysis::RankAnalysis& ra,
                          const RankRows* rows = nullptr);

}  // namespace fastenough::report
