// The trace diff of two sides (op_aggregate.h): rows matched by kind and name
// first, then by input shapes; added, removed, changed (by call count, by
// time or by shapes), and the rest summarised as unchanged.
//
// Matching: a kind and name only one side has is one added or removed row,
// `entirely` (its shapes summed): an op that really appeared or disappeared
// (aten::item, a clone), which the view lists first. Within a kind and name
// both sides have, the shapes both ran pair up row by row; what is left over
// is one "changed" row with shapes_changed when both sides have leftovers (a
// batch-size change turns every GEMM's shapes: that is one op whose inputs
// changed, not one op removed and another added), and an added or removed row
// per shape otherwise.
//
// Per item: when both sides know their items per step (DiffOptions), every
// row also has its time per item, and a row's time change, its order and
// the totals are judged per item, so that a run of larger batches does not
// read as every op being slower.
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
  // Items per profiled step of each side; 0 when unknown. Both > 0 on the
  // per-step basis: the time change is judged per item, with min_abs_ns
  // spread over B's items per step.
  double items_per_step_a = 0;
  double items_per_step_b = 0;
};

enum class RowStatus : uint8_t { kAdded, kRemoved, kChanged, kUnchanged };
const char* RowStatusName(RowStatus s);

struct SideFigures {
  double calls = 0;
  double time_ns = 0;
  double time_per_item_ns = 0;  // time_ns / items per step when per item, else 0
};

struct DiffRow {
  RowStatus status = RowStatus::kUnchanged;
  OpKey key;
  bool in_a = false, in_b = false;
  SideFigures a, b;        // zeros on the side where the row is absent
  bool calls_changed = false;
  bool time_changed = false;
  // Matched by name, but the shapes differ: key.input_dims is empty and
  // dims_a / dims_b hold each side's shapes (the figures are their sums).
  bool shapes_changed = false;
  // Added or removed, and the other side has no row of this kind and name:
  // one row for the name, its shapes summed (key.input_dims empty when it ran
  // with several).
  bool entirely = false;
  // The input shapes this row covers on each side (empty where absent, and
  // for device rows and ops recorded without shapes).
  std::vector<std::string> dims_a, dims_b;
  double delta_calls() const { return b.calls - a.calls; }
  double delta_time_ns() const { return b.time_ns - a.time_ns; }
  double delta_time_per_item_ns() const { return b.time_per_item_ns - a.time_per_item_ns; }
};

struct KindTotals {
  double a_ns = 0, b_ns = 0;
  double a_per_item_ns = 0, b_per_item_ns = 0;  // when per_item
  int64_t rows_a = 0, rows_b = 0;
};

// An (op, shapes) of either side's roofline rows, with each side's figures
// (absent: the side has no row of it), so that the same time on two devices,
// or an op against its replacement, reads against what each device can do.
struct RooflinePair {
  RooflineKey key;
  bool in_a = false, in_b = false;
  RooflineTotals a, b;
};
// How many pairs a diff keeps: the heaviest (larger side's device time).
constexpr size_t kDiffRooflinePairs = 20;

struct TraceDiff {
  bool per_step = false;  // the basis: per steady step, or totals
  bool per_item = false;  // per step, and both sides know their items per step
  int64_t steady_steps_a = 0, steady_steps_b = 0;
  std::vector<std::string> paths_a, paths_b;
  DiffOptions options;
  // Added, removed and changed rows, largest |delta time| first (per item
  // when per_item).
  std::vector<DiffRow> rows;
  int64_t unchanged_rows = 0;
  double unchanged_a_ns = 0, unchanged_b_ns = 0;
  std::map<RowKind, KindTotals> totals;  // over all rows of the basis
  std::vector<RooflinePair> roofline;    // heaviest first, at most kDiffRooflinePairs
};

TraceDiff DiffSides(const SideAggregate& a, const SideAggregate& b, const DiffOptions& options = {});

}  // namespace fastenough::diff
