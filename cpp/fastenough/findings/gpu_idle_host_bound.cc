// gpu-idle-host-bound: the share of steady-step time the whole device sat
// idle in host_wait gaps (a stream gap whose next op was launched after the
// previous op ended; analysis/device_breakdown.h), minus the idle other
// findings already explain (syncs, copies, gemm loops), so savings are not
// counted twice. Evidence names the CPU ops and Python lines that were
// running during the largest gaps: that is the host work to shrink.
#include <algorithm>

#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

void DetectGpuIdleHostBound(const DetectContext& ctx, const timeline::IntervalSet& explained,
                            std::vector<Finding>& out) {
  const auto& st = ctx.store;
  std::vector<timeline::Interval> hw;
  for (const auto& d : ctx.analysis.devices) {
    for (const auto& s : d.streams) {
      for (const auto& g : s.gaps) {
        if (g.kind == analysis::GapKind::kHostWait) hw.push_back({g.start_ns, g.end_ns});
      }
    }
  }
  if (hw.empty() || ctx.steady_ns <= 0) return;
  const auto& busy = ctx.analysis.busy_all;
  timeline::IntervalSet idle = timeline::Subtract(timeline::IntervalSet::FromUnsorted(std::move(hw)), busy);
  idle = timeline::Intersect(idle, ctx.steady_set);
  const int64_t all_idle = idle.TotalLength();
  idle = timeline::Subtract(idle, explained);
  const int64_t total = idle.TotalLength();
  const double share = static_cast<double>(total) / ctx.steady_ns;
  if (share < 0.10) return;
  Finding f = NewFinding("gpu-idle-host-bound", Verdict::kAvoidable, st.rank);
  AddEvidence(f, "host_wait_idle_share", Round3(share));
  AddEvidence(f, "host_wait_idle_ns_per_step", static_cast<int64_t>(total / ctx.steps()));
  AddEvidence(f, "explained_by_other_findings_ns", all_idle - total);
  // The three largest gaps, and the top-level host op overlapping each most.
  std::vector<timeline::Interval> gaps = idle.intervals();
  std::sort(gaps.begin(), gaps.end(), [](auto& a, auto& b) {
    return a.length() != b.length() ? a.length() > b.length() : a.start < b.start;
  });
  if (gaps.size() > 3) gaps.resize(3);
  AddEvidence(f, "largest_gap_ns", gaps.empty() ? int64_t{0} : gaps.front().length());
  std::vector<int64_t> best_overlap(gaps.size(), 0);
  std::vector<int32_t> best_row(gaps.size(), -1);
  for (uint32_t r : ctx.tree.host_order) {
    if (st.kind[r] != trace::EventKind::kCpuOp) continue;
    const int32_t p = ctx.tree.parent[r];
    if (p != trace::kNoRow && st.kind[p] == trace::EventKind::kCpuOp) continue;  // top level only
    for (size_t g = 0; g < gaps.size(); ++g) {
      const int64_t ov = std::min(st.end_ns(r), gaps[g].end) - std::max(st.ts_ns[r], gaps[g].start);
      if (ov > best_overlap[g]) {
        best_overlap[g] = ov;
        best_row[g] = static_cast<int32_t>(r);
      }
    }
  }
  for (size_t g = 0; g < gaps.size(); ++g) {
    if (best_row[g] >= 0) f.where.push_back(WhereOfRow(ctx, best_row[g]));
    AddMark(ctx, f, "device idle, waiting for the host" +
                        (best_row[g] >= 0 ? " (running " + std::string(st.name_of(best_row[g])) + ")"
                                          : std::string()),
            gaps[g].start, gaps[g].end, best_row[g]);
  }
  ctx.SetSaving(f, total);
  f.claimed = idle;
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
