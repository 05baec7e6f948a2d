#include "fastenough/diff/op_aggregate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "fastenough/analysis/call_tree.h"
#include "fastenough/roofline/rank_roofline.h"

#include "fastenough/analysis/steps.h"
#include "fastenough/timeline/step_windows.h"
#include "fastenough/trace/load_trace.h"

namespace fastenough::diff {

const char* RowKindName(RowKind k) {
  switch (k) {
    case RowKind::kCpuOp: return "cpu_op";
    case RowKind::kKernel: return "kernel";
    case RowKind::kMemcpy: return "memcpy";
    case RowKind::kMemset: return "memset";
  }
  return "?";
}

namespace {

std::optional<RowKind> RowKindOf(trace::EventKind k) {
  switch (k) {
    case trace::EventKind::kCpuOp: return RowKind::kCpuOp;
    case trace::EventKind::kKernel: return RowKind::kKernel;
    case trace::EventKind::kMemcpy: return RowKind::kMemcpy;
    case trace::EventKind::kMemset: return RowKind::kMemset;
    default: return std::nullopt;
  }
}

// "Input Dims" as the trace wrote it, in one spelling: no whitespace but a
// space after each comma ("[[8, 64], []]"), so that a pretty-printed trace
// and a compact one match. Dims hold numbers and brackets only.
std::string CanonicalDims(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (char c : raw) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    out.push_back(c);
    if (c == ',') out.push_back(' ');
  }
  return out;
}

// The steady windows, sorted by start, and a lookup "is t inside one".
class SteadyWindows {
 public:
  explicit SteadyWindows(const trace::EventStore& store) {
    analysis::StepStats s = analysis::AnalyzeSteps(timeline::FindStepWindows(store), {});
    total_ = static_cast<int64_t>(s.steps.size());
    for (size_t i = s.steady_begin; i < s.steps.size(); ++i) windows_.push_back(s.steps[i].window);
  }
  int64_t total_steps() const { return total_; }
  int64_t steady_steps() const { return static_cast<int64_t>(windows_.size()); }
  bool Contains(int64_t t) const {
    // The last window starting at or before t; windows do not overlap.
    auto it = std::upper_bound(windows_.begin(), windows_.end(), t,
                               [](int64_t v, const timeline::StepWindow& w) { return v < w.start_ns; });
    if (it == windows_.begin()) return false;
    --it;
    return t < it->end_ns;
  }

 private:
  std::vector<timeline::StepWindow> windows_;
  int64_t total_ = 0;
};

}  // namespace

double RooflineTotals::pct_of_roof() const {
  if (device_ns <= 0 || std::isnan(time_at_roof_ns)) return std::numeric_limits<double>::quiet_NaN();
  return 100.0 * time_at_roof_ns / static_cast<double>(device_ns);
}

namespace {

// The trace's hot ops against the device's roofs, as the report has them.
void AddRoofline(const trace::EventStore& store, RooflineTable& table,
                 const roofline::PeakSettings& peaks) {
  const analysis::CallTree tree = analysis::BuildCallTree(store);
  const roofline::RankRoofline rows =
      roofline::ComputeRankRoofline(store, kDiffRooflineRows, peaks, [&](int32_t launch) {
        return tree.Enclosing(store, launch, trace::EventKind::kCpuOp);
      });
  for (const roofline::OpRoofline& op : rows.ops) {
    const RooflineKey key{op.op, op.input_dims, op.input_types};
    const bool first = !table.count(key);
    RooflineTotals& t = table[key];
    t.calls += op.calls;
    t.device_ns += op.device_ns;
    t.time_at_roof_ns += op.time_at_roof_ns;  // NaN stays NaN
    if (first) {
      t.bound = op.bound;
      t.device = op.peak.device;
      t.dtype = op.bound == "compute" ? op.peak.dtype : "";
    }
  }
}

}  // namespace

void AddTrace(const trace::EventStore& store, SideAggregate& side,
              const roofline::PeakSettings& peaks) {
  AddRoofline(store, side.roofline, peaks);
  const bool first_file = side.paths.empty();
  side.paths.push_back(store.path);
  SteadyWindows steady(store);
  side.steady_steps += steady.steady_steps();
  side.all_files_have_steps = (first_file || side.all_files_have_steps) && steady.total_steps() > 0;
  for (size_t r = 0; r < store.size(); ++r) {
    const std::optional<RowKind> kind = RowKindOf(store.kind[r]);
    if (!kind) continue;
    OpKey key{*kind, std::string(store.name_of(r)), ""};
    if (*kind == RowKind::kCpuOp && store.input_dims[r] != kNoString) {
      key.input_dims = CanonicalDims(store.strings().Get(store.input_dims[r]));
    }
    // Device activity counts in the step whose host code launched it.
    int64_t when = store.ts_ns[r];
    if (*kind != RowKind::kCpuOp && store.launch_row[r] != trace::kNoRow) {
      when = store.ts_ns[static_cast<size_t>(store.launch_row[r])];
    }
    const bool in_steady = steady.Contains(when);
    OpTotals& w = side.whole[key];
    ++w.calls;
    w.total_ns += store.dur_ns[r];
    if (in_steady) {
      OpTotals& s = side.steady[std::move(key)];
      ++s.calls;
      s.total_ns += store.dur_ns[r];
    }
  }
}

StatusOr<SideAggregate> AggregateTraceFiles(const std::vector<std::string>& paths,
                                            const roofline::PeakSettings& peaks) {
  if (paths.empty()) return InvalidArgument("no trace file to diff");
  SideAggregate side;
  for (const std::string& p : paths) {
    StatusOr<trace::EventStore> store = trace::LoadTrace(p);
    if (!store.ok()) return store.status();
    AddTrace(*store, side, peaks);
  }
  return side;
}

}  // namespace fastenough::diff
