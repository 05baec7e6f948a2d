#include "fastenough/diff/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <tuple>

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

using Iter = OpTable::const_iterator;

// How one side's table entries become per-step (or total) figures.
struct Scale {
  double steps = 1;  // the divisor of the basis
  double items = 0;  // items per step when per item, else 0
};

void Accumulate(SideFigures& f, const OpTotals& t, const Scale& s) {
  f.calls += static_cast<double>(t.calls) / s.steps;
  f.time_ns += static_cast<double>(t.total_ns) / s.steps;
  if (s.items > 0) f.time_per_item_ns = f.time_ns / s.items;
}

// Calls per step are ratios of integers: equal counts give equal doubles up
// to rounding, so anything beyond a relative 1e-9 is a real difference.
bool CallsDiffer(double x, double y) {
  return std::fabs(x - y) > 1e-9 * std::max(std::fabs(x), std::fabs(y));
}

void Classify(DiffRow& row, const DiffOptions& o, bool per_item) {
  if (!row.in_a) {
    row.status = RowStatus::kAdded;
    return;
  }
  if (!row.in_b) {
    row.status = RowStatus::kRemoved;
    return;
  }
  row.calls_changed = CallsDiffer(row.a.calls, row.b.calls);
  if (per_item) {
    // Per item, with the absolute floor spread over B's batch: the same
    // bounds as per step, had A run B's batch size.
    const double delta = std::fabs(row.delta_time_per_item_ns());
    row.time_changed = delta * o.items_per_step_b >= o.min_abs_ns &&
                       delta >= o.min_rel * std::max(row.a.time_per_item_ns, row.b.time_per_item_ns);
  } else {
    const double delta = std::fabs(row.delta_time_ns());
    row.time_changed = delta >= o.min_abs_ns && delta >= o.min_rel * std::max(row.a.time_ns, row.b.time_ns);
  }
  const bool changed = row.calls_changed || row.time_changed || row.shapes_changed;
  row.status = changed ? RowStatus::kChanged : RowStatus::kUnchanged;
}

bool SameName(const OpKey& x, const OpKey& y) { return x.kind == y.kind && x.name == y.name; }

Iter GroupEnd(Iter it, Iter end) {
  Iter j = it;
  while (j != end && SameName(j->first, it->first)) ++j;
  return j;
}

// The rows of one kind and name: [ia, ea) on A, [ib, eb) on B, each sorted
// by shapes.
void DiffGroup(Iter ia, Iter ea, Iter ib, Iter eb, const Scale& sa, const Scale& sb,
               const DiffOptions& o, bool per_item, std::vector<DiffRow>& out) {
  if (ia == ea || ib == eb) {
    // The name is on one side only: one row for it, whatever its shapes.
    const bool on_a = ia != ea;
    DiffRow row;
    row.key = (on_a ? ia : ib)->first;
    (on_a ? row.in_a : row.in_b) = true;
    row.entirely = true;
    std::vector<std::string>& dims = on_a ? row.dims_a : row.dims_b;
    for (Iter it = on_a ? ia : ib, end = on_a ? ea : eb; it != end; ++it) {
      Accumulate(on_a ? row.a : row.b, it->second, on_a ? sa : sb);
      if (!it->first.input_dims.empty()) dims.push_back(it->first.input_dims);
    }
    if (std::distance(on_a ? ia : ib, on_a ? ea : eb) > 1) row.key.input_dims.clear();
    Classify(row, o, per_item);
    out.push_back(std::move(row));
    return;
  }
  std::vector<Iter> left_a, left_b;  // shapes without a match on the other side
  while (ia != ea || ib != eb) {
    if (ib == eb || (ia != ea && ia->first.input_dims < ib->first.input_dims)) {
      left_a.push_back(ia++);
    } else if (ia == ea || ib->first.input_dims < ia->first.input_dims) {
      left_b.push_back(ib++);
    } else {
      DiffRow row;
      row.key = ia->first;
      row.in_a = row.in_b = true;
      Accumulate(row.a, ia->second, sa);
      Accumulate(row.b, ib->second, sb);
      if (!row.key.input_dims.empty()) row.dims_a = row.dims_b = {row.key.input_dims};
      Classify(row, o, per_item);
      out.push_back(std::move(row));
      ++ia;
      ++ib;
    }
  }
  if (!left_a.empty() && !left_b.empty()) {
    // The same op with other inputs: one row, each side's shapes summed.
    DiffRow row;
    row.key = left_a.front()->first;
    row.key.input_dims.clear();
    row.in_a = row.in_b = true;
    row.shapes_changed = true;
    for (Iter it : left_a) {
      Accumulate(row.a, it->second, sa);
      if (!it->first.input_dims.empty()) row.dims_a.push_back(it->first.input_dims);
    }
    for (Iter it : left_b) {
      Accumulate(row.b, it->second, sb);
      if (!it->first.input_dims.empty()) row.dims_b.push_back(it->first.input_dims);
    }
    Classify(row, o, per_item);
    out.push_back(std::move(row));
    return;
  }
  // Shapes one side ran while the other still runs the op otherwise.
  for (const auto& [left, on_a] : {std::pair{&left_a, true}, std::pair{&left_b, false}}) {
    for (Iter it : *left) {
      DiffRow row;
      row.key = it->first;
      (on_a ? row.in_a : row.in_b) = true;
      Accumulate(on_a ? row.a : row.b, it->second, on_a ? sa : sb);
      if (!row.key.input_dims.empty()) (on_a ? row.dims_a : row.dims_b) = {row.key.input_dims};
      Classify(row, o, per_item);
      out.push_back(std::move(row));
    }
  }
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
  d.per_item = d.per_step && options.items_per_step_a > 0 && options.items_per_step_b > 0;
  const OpTable& ta = d.per_step ? a.steady : a.whole;
  const OpTable& tb = d.per_step ? b.steady : b.whole;
  const Scale sa{d.per_step ? static_cast<double>(a.steady_steps) : 1.0,
                 d.per_item ? options.items_per_step_a : 0.0};
  const Scale sb{d.per_step ? static_cast<double>(b.steady_steps) : 1.0,
                 d.per_item ? options.items_per_step_b : 0.0};

  // Both tables are sorted by (kind, name, shapes): one merge pass over the
  // (kind, name) groups pairs them.
  std::vector<DiffRow> all;
  Iter ia = ta.begin(), ib = tb.begin();
  while (ia != ta.end() || ib != tb.end()) {
    bool take_a = ia != ta.end(), take_b = ib != tb.end();
    if (take_a && take_b) {
      const auto ka = std::tie(ia->first.kind, ia->first.name);
      const auto kb = std::tie(ib->first.kind, ib->first.name);
      take_a = !(kb < ka);
      take_b = !(ka < kb);
    }
    const Iter ea = take_a ? GroupEnd(ia, ta.end()) : ia;
    const Iter eb = take_b ? GroupEnd(ib, tb.end()) : ib;
    KindTotals& kt = d.totals[(take_a ? ia : ib)->first.kind];
    kt.rows_a += std::distance(ia, ea);
    kt.rows_b += std::distance(ib, eb);
    DiffGroup(ia, ea, ib, eb, sa, sb, options, d.per_item, all);
    ia = ea;
    ib = eb;
  }
  for (DiffRow& row : all) {
    KindTotals& kt = d.totals[row.key.kind];
    kt.a_ns += row.a.time_ns;
    kt.b_ns += row.b.time_ns;
    kt.a_per_item_ns += row.a.time_per_item_ns;
    kt.b_per_item_ns += row.b.time_per_item_ns;
    if (row.status == RowStatus::kUnchanged) {
      ++d.unchanged_rows;
      d.unchanged_a_ns += row.a.time_ns;
      d.unchanged_b_ns += row.b.time_ns;
    } else {
      d.rows.push_back(std::move(row));
    }
  }
  const bool per_item = d.per_item;
  std::stable_sort(d.rows.begin(), d.rows.end(), [per_item](const DiffRow& x, const DiffRow& y) {
    const double dx = std::fabs(per_item ? x.delta_time_per_item_ns() : x.delta_time_ns());
    const double dy = std::fabs(per_item ? y.delta_time_per_item_ns() : y.delta_time_ns());
    if (dx != dy) return dx > dy;
    return x.key < y.key;
  });
  // The roofline rows of both sides, paired by (op, shapes).
  for (const auto& [key, t] : a.roofline) d.roofline.push_back({key, true, false, t, {}});
  for (const auto& entry : b.roofline) {
    // Not a structured binding: clang before 16 (the sanitizer build) cannot
    // capture one in a lambda.
    const auto& key = entry.first;
    const auto& t = entry.second;
    auto it = std::find_if(d.roofline.begin(), d.roofline.end(),
                           [&key](const RooflinePair& p) { return p.key == key; });
    if (it == d.roofline.end()) {
      d.roofline.push_back({key, false, true, {}, t});
    } else {
      it->in_b = true;
      it->b = t;
    }
  }
  std::stable_sort(d.roofline.begin(), d.roofline.end(),
                   [](const RooflinePair& x, const RooflinePair& y) {
                     const int64_t nx = std::max(x.a.device_ns, x.b.device_ns);
                     const int64_t ny = std::max(y.a.device_ns, y.b.device_ns);
                     if (nx != ny) return nx > ny;
                     return x.key < y.key;
                   });
  if (d.roofline.size() > kDiffRooflinePairs) d.roofline.resize(kDiffRooflinePairs);
  return d;
}

}  // namespace fastenough::diff
