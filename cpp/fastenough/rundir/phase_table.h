// The phase table of a run: one row per phase instance (per rank), with the
// host time from the agent's monotonic marks and the device/process figures
// of samples.csv joined by wall-clock window.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fastenough/rundir/run_files.h"

namespace fastenough::rundir {

struct PhaseRow {
  std::string name;
  std::string mode;  // of the begin edge: "train" | "eval" | "" (older agents)
  int rank = 0;
  int64_t pid = 0;
  bool automatic = false;
  bool complete = true;  // false: no end edge (the process died inside it)
  int64_t start_wall_ns = 0, end_wall_ns = 0;
  int64_t host_ns = 0;  // end - begin on the monotonic clock (wall clock when incomplete)
  std::optional<double> device_busy_share;
  std::string busy_source;  // "trace" | "util" (mean sampled utilisation / 100) | ""
  std::optional<double> util_mean, power_mean_w, cpu_mean_pct;
  std::optional<int64_t> mem_used_max, mem_total, rss_max;
  std::optional<int64_t> alloc_peak, reserved_peak;
  // Mean CPU % per process of the tree over the window (samples.csv proc-pid
  // rows; a process absent from a tick used none); empty in run directories
  // of older samplers.
  std::map<int64_t, double> cpu_mean_pct_by_pid;
  int samples = 0;  // device samples inside the window
  int64_t instances = 1;  // phase instances this row stands for (MergePhaseRows)
};

struct PhaseTableInputs {
  // Physical device index per local "cuda:N" (visible-devices mapping);
  // empty: local index = physical index.
  std::vector<int> visible_physical;
  // Device busy share per rank from the trace analysis (profile window).
  std::map<int, double> trace_busy_share;
  // Wall clock at which the run ended, closing phases that never ended.
  std::optional<int64_t> run_end_wall_ns;
};

// Pairs begin/end edges per (rank, pid, phase): an end closes the most recent
// open begin of the same name, so phases may nest. Rows are ordered by start.
std::vector<PhaseRow> BuildPhaseTable(const RunFiles& files, const PhaseTableInputs& inputs);

// The phases as a report lists them (issue 37, item 11): a loop that
// alternates training and evaluation enters a phase at every switch (396
// rows for cleanrl PPO, 206 for PyG link prediction). Consecutive instances
// of one phase in one mode's own sequence (per rank and process: warmup,
// warmup, ... then steady, steady, ...) become one row whose host time is
// theirs summed, its window from the first start to the last end, peaks
// their maximum, means weighted by host time, `instances` how many. A list
// still longer than max_rows is merged per (rank, process, phase, mode,
// automatic), in order of first appearance. Rows stay in order of start.
inline constexpr size_t kPhaseRowsMax = 64;
std::vector<PhaseRow> MergePhaseRows(const std::vector<PhaseRow>& rows,
                                     size_t max_rows = kPhaseRowsMax);

}  // namespace fastenough::rundir
