// comm-not-overlapped: collective kernel time (NCCL/RCCL/HCCL) inside steady
// steps during which no compute kernel ran. Some of it may be required (a
// collective that needs the compute right before it), which the trace alone
// cannot tell: insufficient evidence, with the exposed time as the bound.
#include <algorithm>
#include <map>
#include <string>

#include "fastenough/analysis/device_breakdown.h"
#include "fastenough/analysis/memcpy.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

void DetectCommNotOverlapped(const DetectContext& ctx, std::vector<Finding>& out) {
  const auto& st = ctx.store;
  std::vector<timeline::Interval> iv;
  std::map<std::string, int64_t> by_name;
  int64_t count = 0;
  std::vector<uint32_t> rows;  // the steady collective kernels, for marks
  const std::vector<int8_t> is_comm = analysis::CommunicationByName(st);
  for (size_t i = 0; i < st.size(); ++i) {
    if (st.kind[i] != trace::EventKind::kKernel || !ctx.InSteady(st.ts_ns[i])) continue;
    if (is_comm[st.name[i]] != 1) continue;
    iv.push_back({st.ts_ns[i], st.end_ns(i)});
    by_name[std::string(st.name_of(i))] += st.dur_ns[i];
    ++count;
    rows.push_back(static_cast<uint32_t>(i));
  }
  if (count == 0) return;
  const auto comm = timeline::Intersect(timeline::IntervalSet::FromUnsorted(std::move(iv)), ctx.steady_set);
  const int64_t comm_ns = comm.TotalLength();
  const int64_t exposed = timeline::Subtract(comm, ctx.compute).TotalLength();
  const double mean_step = ctx.steady_ns / ctx.steps();
  if (exposed / ctx.steps() < 0.05 * mean_step) return;
  Finding f = NewFinding("comm-not-overlapped", Verdict::kInsufficientEvidence, st.rank);
  AddEvidence(f, "collective_kernels_per_step", Round3(count / ctx.steps()));
  AddEvidence(f, "comm_ns_per_step", static_cast<int64_t>(comm_ns / ctx.steps()));
  AddEvidence(f, "exposed_comm_ns_per_step", static_cast<int64_t>(exposed / ctx.steps()));
  AddEvidence(f, "overlapped_share", Round3(comm_ns > 0 ? 1.0 - double(exposed) / comm_ns : 0));
  AddEvidence(f, "missing", std::string("which collectives depend on the compute right before "
                                        "them (bucket / prefetch settings)"));
  auto top = std::max_element(by_name.begin(), by_name.end(),
                              [](auto& a, auto& b) { return a.second < b.second; });
  Location loc;
  loc.rank = st.rank;
  loc.kernel = top->first;
  f.where.push_back(loc);
  for (uint32_t r : rows) {
    if (f.marks.size() >= kMaxMarks) break;
    // Only collectives with a part no compute overlaps.
    if (ctx.compute.LengthWithin(st.ts_ns[r], st.end_ns(r)) >= st.dur_ns[r]) continue;
    AddMark(ctx, f, "collective not overlapped with compute", st.ts_ns[r], st.end_ns(r),
            static_cast<int32_t>(r));
  }
  ctx.SetSaving(f, exposed);
  f.claimed = timeline::Subtract(comm, ctx.compute);
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
