// The trace diff of two sides (op_aggregate.h): rows matched by kind, name and
// input shapes; added, removed, changed (by call count or by time), and the
// rest summarised as unchanged.
//
// Basis: when both sides have steady ProfilerStep windows, every figure is per
// steady step (the steady aggregate divided by the number of steady steps), so
// two runs that profiled a different number of steps compare fairly; otherwise
// the totals over the whole trace are compared as they are.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fastenough/diff/op_aggregate.h"

namespace fastenough::diff {

struct DiffOptions {
  // A matched row with the same calls is "changed" only when its time moved
  // by at least min_rel of the larger side AND by at least min_abs_ns (per
  // step on the per-step basis). Below either bound it is noise.
  double min_rel = 0.05;
  double min_abs_ns = 1000.0;
};

enum class RowStatus : uint8_t { kAdded, kRemoved, kChanged, kUnchanged };
const char* RowStatusName(RowStatus s);

struct SideFigures {
  double calls = 0;
  double time_ns = 0;
};

struct DiffRow {
  RowStatus status = RowStatus::kUnchanged;
  OpKey key;
  bool in_a = false, in_b = false;
  SideFigures a, b;        // zeros on the side where the row is absent
  bool calls_changed = false;
  bool time_changed = false;
  double delta_calls() const { return b.calls - a.calls; }
  double delta_time_ns() const { return b.time_ns - a.time_ns; }
};

struct KindTotals {
  double a_ns = 0, b_ns = 0;
  int64_t rows_a = 0, rows_b = 0;
};

struct TraceDiff {
  bool per_step = false;  // the basis: per steady step, or totals
  int64_t steady_steps_a = 0, steady_steps_b = 0;
  std::vector<std::string> paths_a, paths_b;
  DiffOptions options;
  // Added, removed and changed rows, largest |delta time| first.
  std::vector<DiffRow> rows;
  int64_t unchanged_rows = 0;
  double unchanged_a_ns = 0, unchanged_b_ns = 0;
  std::map<RowKind, KindTotals> totals;  // over all rows of the basis
};

TraceDiff DiffSides(const SideAggregate& a, const SideAggregate& b, const DiffOptions& options = {});

}  // namespace fastenough::diff
