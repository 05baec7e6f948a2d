// How many per-step and per-device rows a report lists (issue 34, item 9).
//
// A trace of a million ProfilerStep windows, or of 100k devices, would give a
// report of hundreds of megabytes if every step and every device had its row:
// more than any reader (a person, a renderer, a model's context) can use, and
// the bulk of the time of `analyze --json`. The report therefore lists, per
// rank:
//   steps    the first kReportStepRows/2 and the last kReportStepRows/2 of
//            its steps, plus the longest steady step (step_breakdown's
//            worst_step), in `steps.per_rank[].windows`,
//            `step_breakdown.per_rank[].steps`, `efficiency.devices[].steps`
//            and `memory[].steps` (the same steps in each);
//   devices  its kReportDeviceRows busiest devices (by busy_ns, in their
//            order) in `devices`, `efficiency.devices` and `memory`.
// What is left out is said where it is left out (`omitted`) and summed in
// `devices_omitted`. Every count, percentile and mean of the report is over
// ALL steps and devices, never only the listed rows: the bound applies when
// the report is written (report_json.cc, depth_json.cc), after the analysis.
// A rank summary (rank_summary_json.h) is not bounded: `merge` pools its rows
// exactly as `analyze` does, and then writes the report with the same bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <unordered_set>
#include <vector>

#include "fastenough/analysis/rank_analysis.h"

namespace fastenough::report {

inline constexpr size_t kReportStepRows = 1000;   // per rank and list
inline constexpr size_t kReportDeviceRows = 256;  // per rank
// No bound: what a rank summary writes.
inline constexpr size_t kAllRows = std::numeric_limits<size_t>::max();

// The rows of a list of n that are written, ascending and distinct: all of
// them when n <= limit; otherwise the first limit/2, the last limit - limit/2,
// and every index of `also` below n (which may make one or two more).
std::vector<size_t> KeptRows(size_t n, size_t limit, std::span<const size_t> also = {});

// The kept rows as half-open index ranges [begin, end) of consecutive rows,
// as the report's `omitted.kept` writes them.
std::vector<std::pair<size_t, size_t>> KeptRanges(const std::vector<size_t>& kept);

// The `limit` rows of largest weight (ties: the earlier row), ascending; all
// rows when there are at most `limit`. Linear on average (nth_element).
std::vector<size_t> KeptHeaviest(std::span<const int64_t> weight, size_t limit);

// The rows of one rank the report lists. Writers given none list every row
// (a rank summary).
struct RankRows {
  size_t step_count = 0;       // the rank's steps (StepStats::steps)
  std::vector<size_t> steps;   // kept indices into them (and into every per-step list)
  bool devices_bounded = false;
  std::vector<size_t> devices;  // kept indices into RankAnalysis::devices
  std::unordered_set<int64_t> device_ids;  // their device numbers

  bool StepsBounded() const { return steps.size() < step_count; }
  // Whether the row of device `id` (efficiency.devices, a CUDA memory row) is listed.
  bool KeepsDevice(int64_t id) const { return !devices_bounded || device_ids.count(id) != 0; }
};

// The first and last of the rank's steps and its longest steady step; its
// busiest devices (see above).
RankRows BoundRank(const analysis::RankAnalysis& ra, size_t step_limit = kReportStepRows,
                   size_t device_limit = kReportDeviceRows);

}  // namespace fastenough::report
