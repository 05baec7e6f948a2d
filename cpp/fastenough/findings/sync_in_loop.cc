// sync-in-loop: the host blocks on the device inside steady steps. Evidence
// per step: synchronising calls, the host time spent waiting in them, the
// blocking device-to-host copies, and the device idle that follows (the
// device drained its queue during the wait and stays empty until the host
// submits the next kernel). The saving bound is that idle: without the sync
// the host could have queued work ahead.
#include <algorithm>
#include <map>
#include <tuple>

#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

void DetectSyncInLoop(const DetectContext& ctx, std::vector<Finding>& out,
                      timeline::IntervalSet& explained) {
  const auto& st = ctx.store;
  struct Site {
    int64_t count = 0;
    int64_t idle_ns = 0;
    int32_t example = -1;
  };
  std::map<std::tuple<std::string, std::string, int, std::string>, Site> sites;
  int64_t calls = 0, wait_ns = 0;
  std::vector<timeline::Interval> holes;
  struct SyncMark {
    int64_t start, end;
    int32_t row;
  };
  std::vector<SyncMark> marks;  // the syncs that left the device idle, first ones
  for (const auto& s : ctx.syncs) {
    if (!ctx.InSteady(s.start_ns)) continue;
    ++calls;
    wait_ns += s.end_ns - s.start_ns;
    // Only the part of the hole inside steady steps counts.
    const int64_t idle = s.idle_after.length() > 0
                             ? ctx.steady_set.LengthWithin(s.idle_after.start, s.idle_after.end)
                             : 0;
    if (idle > 0) holes.push_back(s.idle_after);
    if (idle > 0 && marks.size() < kMaxMarks) {
      marks.push_back({s.start_ns, std::max(s.end_ns, s.idle_after.end),
                       s.cause_op >= 0 ? s.cause_op : s.row});
    }
    const Location loc = WhereOfRow(ctx, s.cause_op >= 0 ? s.cause_op : s.row);
    Site& site = sites[{s.cause_op >= 0 ? std::string(st.name_of(s.cause_op)) : std::string(),
                        loc.file, loc.line, std::string(st.name_of(s.row))}];
    site.count += 1;
    site.idle_ns += idle;
    if (site.example < 0) site.example = s.cause_op >= 0 ? s.cause_op : s.row;
  }
  if (calls == 0) return;
  // Holes shared by several syncs count once.
  const timeline::IntervalSet idle_set =
      timeline::Intersect(timeline::IntervalSet::FromUnsorted(std::move(holes)), ctx.steady_set);
  const int64_t idle_total = idle_set.TotalLength();
  // Blocking device-to-host copies: launched under a sync-causing op.
  int64_t dtoh = 0;
  for (size_t i = 0; i < st.size(); ++i) {
    if (st.kind[i] != trace::EventKind::kMemcpy || !ctx.InSteady(st.ts_ns[i])) continue;
    if (analysis::ParseCopyDirection(st.name_of(i)) != analysis::CopyDirection::kDtoH) continue;
    if (st.launch_row[i] != trace::kNoRow && ctx.UnderSyncCause(st.launch_row[i])) ++dtoh;
  }
  const double per_step = calls / ctx.steps();
  // A sync that leaves the device idle for less than 1% of a step costs
  // nothing worth a change (e.g. a sync after the device already drained).
  const double mean_step = ctx.steady_ns / ctx.steps();
  if (idle_total / ctx.steps() < 0.01 * mean_step) return;
  // Without step markers one sync could be the end-of-run barrier: need a loop.
  if (!ctx.has_steps && calls < 3) return;

  Finding f = NewFinding("sync-in-loop",
                         ctx.has_steps ? Verdict::kAvoidable : Verdict::kInsufficientEvidence,
                         st.rank);
  AddEvidence(f, "steps", static_cast<int64_t>(ctx.has_steps ? ctx.steady.size() : 0));
  AddEvidence(f, "sync_calls", calls);
  AddEvidence(f, "calls_per_step", Round3(per_step));
  AddEvidence(f, "blocking_dtoh_copies_per_step", Round3(dtoh / ctx.steps()));
  AddEvidence(f, "host_wait_ns_per_step", static_cast<int64_t>(wait_ns / ctx.steps()));
  AddEvidence(f, "device_idle_after_ns_per_step", static_cast<int64_t>(idle_total / ctx.steps()));
  if (!ctx.has_steps) {
    AddEvidence(f, "missing", std::string("ProfilerStep#N markers: cannot tell loop syncs from "
                                          "one-off ones; profile with a schedule"));
  }
  std::vector<std::pair<Site, Location>> ranked;
  for (const auto& [key, site] : sites) {
    Location loc = WhereOfRow(ctx, site.example);
    loc.kernel = std::get<3>(key);  // the runtime call that blocked
    ranked.push_back({site, loc});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.first.idle_ns != b.first.idle_ns) return a.first.idle_ns > b.first.idle_ns;
    return a.first.count > b.first.count;
  });
  for (size_t i = 0; i < ranked.size() && i < 5; ++i) f.where.push_back(ranked[i].second);
  for (const SyncMark& m : marks) {
    AddMark(ctx, f, "host sync " + std::string(st.name_of(m.row)) + " and the device idle after it",
            m.start, m.end, m.row);
  }
  ctx.SetSaving(f, idle_total);
  f.claimed = idle_set;
  explained = timeline::Union(explained, idle_set);
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
