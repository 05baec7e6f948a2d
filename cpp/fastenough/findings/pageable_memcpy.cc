// pageable-memcpy: host-device copies from/to pageable memory inside steady
// steps. The driver stages them through a pinned bounce buffer, so they
// serialise with the host and cannot overlap compute. Copies already
// explained by a synchronising op (the 4-byte DtoH of .item()) belong to
// sync-in-loop and are left out here. Saving bound: the copy time not
// overlapped by compute (a pinned, non_blocking copy can hide all of it).
#include <algorithm>
#include <map>

#include "fastenough/analysis/memcpy.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

void DetectPageableMemcpy(const DetectContext& ctx, std::vector<Finding>& out,
                          timeline::IntervalSet& explained) {
  const auto& st = ctx.store;
  const auto copies = analysis::FindCopies(st, ctx.compute);
  int64_t n = 0, bytes = 0, ns = 0, exposed = 0, htod = 0, dtoh = 0;
  std::map<std::pair<std::string, int>, std::pair<int64_t, int32_t>> sites;  // (file,line)->(ns,row)
  std::vector<timeline::Interval> iv;
  for (const auto& c : copies) {
    if (!c.pageable || !ctx.InSteady(c.start_ns) || !IsTransferOutsideSync(ctx, c)) continue;
    ++n;
    bytes += c.bytes;
    ns += c.end_ns - c.start_ns;
    exposed += (c.end_ns - c.start_ns) - c.overlap_compute_ns;
    (c.direction == analysis::CopyDirection::kHtoD ? htod : dtoh) += 1;
    iv.push_back({c.start_ns, c.end_ns});
    const int32_t launch = st.launch_row[c.row];
    const int32_t where_row = launch != trace::kNoRow ? launch : st.cpu_op_row[c.row];
    const Location loc = WhereOfRow(ctx, where_row);
    auto& site = sites[{loc.file + "\n" + loc.op, loc.line}];
    site.first += c.end_ns - c.start_ns;
    if (site.second < 0 || site.second == 0) site.second = where_row;
  }
  if (n == 0) return;
  // Tiny copies (a few scalars) waste nothing worth a change.
  const double mean_step = ctx.steady_ns / ctx.steps();
  if (exposed / ctx.steps() < 0.005 * mean_step) return;
  Finding f = NewFinding("pageable-memcpy", Verdict::kAvoidable, st.rank);
  AddEvidence(f, "copies_per_step", Round3(n / ctx.steps()));
  AddEvidence(f, "htod_copies", htod);
  AddEvidence(f, "dtoh_copies", dtoh);
  AddEvidence(f, "bytes_per_step", static_cast<int64_t>(bytes / ctx.steps()));
  AddEvidence(f, "copy_ns_per_step", static_cast<int64_t>(ns / ctx.steps()));
  AddEvidence(f, "overlapped_with_compute_share", Round3(ns > 0 ? 1.0 - double(exposed) / ns : 0));
  std::vector<std::pair<int64_t, int32_t>> ranked;
  for (const auto& [k, v] : sites) ranked.push_back(v);
  std::sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < ranked.size() && i < 5; ++i) {
    Location loc = WhereOfRow(ctx, ranked[i].second);
    f.where.push_back(loc);
  }
  ctx.SetSaving(f, exposed);
  f.claimed = timeline::Subtract(timeline::IntervalSet::FromUnsorted(std::move(iv)), ctx.compute);
  explained = timeline::Union(explained, f.claimed);
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
