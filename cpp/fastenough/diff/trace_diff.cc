#include "fastenough/diff/trace_diff.h"

#include <algorithm>
#include <cmath>

namespace fastenough::diff {

const char* RowStatusName(RowStatus s) {
  switch (s) {
    case RowStatus::kAdded: return "added";
    case RowStatus::kRemoved: return "removed";
    case RowStatus::kChanged: return "changed";
    case RowStatus::kUnchanged: return "unchanged";
  }
  return "?";
}

namespace {

SideFigures Scaled(const OpTotals& t, double steps) {
  return {static_cast<double>(t.calls) / steps, static_cast<double>(t.total_ns) / steps};
}

// Calls per step are ratios of integers: equal counts give equal doubles up
// to rounding, so anything beyond a relative 1e-9 is a real difference.
bool CallsDiffer(double x, double y) {
  return std::fabs(x - y) > 1e-9 * std::max(std::fabs(x), std::fabs(y));
}

void Classify(DiffRow& row, const DiffOptions& o) {
  if (!row.in_a) {
    row.status = RowStatus::kAdded;
    return;
  }
  if (!row.in_b) {
    row.status = RowStatus::kRemoved;
    return;
  }
  const double delta = std::fabs(row.delta_time_ns());
  row.calls_changed = CallsDiffer(row.a.calls, row.b.calls);
  row.time_changed = delta >= o.min_abs_ns && delta >= o.min_rel * std::max(row.a.time_ns, row.b.time_ns);
  row.status = row.calls_changed || row.time_changed ? RowStatus::kChanged : RowStatus::kUnchanged;
}

}  // namespace

TraceDiff DiffSides(const SideAggregate& a, const SideAggregate& b, const DiffOptions& options) {
  TraceDiff d;
  d.options = options;
  d.paths_a = a.paths;
  d.paths_b = b.paths;
  d.steady_steps_a = a.steady_steps;
  d.steady_steps_b = b.steady_steps;
  d.per_step = a.all_files_have_steps && b.all_files_have_steps && a.steady_steps > 0 &&
               b.steady_steps > 0;
  const OpTable& ta = d.per_step ? a.steady : a.whole;
  const OpTable& tb = d.per_step ? b.steady : b.whole;
  const double sa = d.per_step ? static_cast<double>(a.steady_steps) : 1.0;
  const double sb = d.per_step ? static_cast<double>(b.steady_steps) : 1.0;

  // Both tables are sorted by key: one merge pass pairs the rows.
  std::vector<DiffRow> all;
  auto ia = ta.begin();
  auto ib = tb.begin();
  while (ia != ta.end() || ib != tb.end()) {
    DiffRow row;
    if (ib == tb.end() || (ia != ta.end() && ia->first < ib->first)) {
      row.key = ia->first;
      row.in_a = true;
      row.a = Scaled(ia->second, sa);
      ++ia;
    } else if (ia == ta.end() || ib->first < ia->first) {
      row.key = ib->first;
      row.in_b = true;
      row.b = Scaled(ib->second, sb);
      ++ib;
    } else {
      row.key = ia->first;
      row.in_a = row.in_b = true;
      row.a = Scaled(ia->second, sa);
      row.b = Scaled(ib->second, sb);
      ++ia;
      ++ib;
    }
    Classify(row, options);
    KindTotals& kt = d.totals[row.key.kind];
    kt.a_ns += row.a.time_ns;
    kt.b_ns += row.b.time_ns;
    kt.rows_a += row.in_a ? 1 : 0;
    kt.rows_b += row.in_b ? 1 : 0;
    if (row.status == RowStatus::kUnchanged) {
      ++d.unchanged_rows;
      d.unchanged_a_ns += row.a.time_ns;
      d.unchanged_b_ns += row.b.time_ns;
    } else {
      d.rows.push_back(std::move(row));
    }
  }
  std::stable_sort(d.rows.begin(), d.rows.end(), [](const DiffRow& x, const DiffRow& y) {
    const double dx = std::fabs(x.delta_time_ns()), dy = std::fabs(y.delta_time_ns());
    if (dx != dy) return dx > dy;
    return x.key < y.key;
  });
  return d;
}

}  // namespace fastenough::diff
