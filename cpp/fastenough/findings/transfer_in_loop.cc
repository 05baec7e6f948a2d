// transfer-in-loop: pinned host-device copies in every steady step that do
// not overlap compute (pageable ones are reported by pageable-memcpy, sync
// copies by sync-in-loop). Input batches have to reach the device, so the
// copy itself is not waste; what a prefetch on a side stream can remove is
// the part that runs while no compute runs. Whether the data could stay on
// the device instead needs the program: insufficient evidence.
#include "fastenough/analysis/memcpy.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

void DetectTransferInLoop(const DetectContext& ctx, std::vector<Finding>& out) {
  const auto& st = ctx.store;
  const auto copies = analysis::FindCopies(st, ctx.compute);
  int64_t n = 0, bytes = 0, ns = 0, exposed = 0;
  std::vector<int> steps_with_copy(ctx.steady.size(), 0);
  int32_t example = -1;
  std::vector<const analysis::CopyRow*> exposed_copies;  // the first ones, for marks
  std::vector<timeline::Interval> spans;
  for (const auto& c : copies) {
    if (c.pageable || !IsTransferOutsideSync(ctx, c)) continue;
    const int step = ctx.StepOf(c.start_ns);
    if (step < 0) continue;
    const int32_t launch = st.launch_row[c.row];
    ++n;
    bytes += c.bytes;
    ns += c.end_ns - c.start_ns;
    exposed += (c.end_ns - c.start_ns) - c.overlap_compute_ns;
    steps_with_copy[step] = 1;
    spans.push_back({c.start_ns, c.end_ns});
    if ((c.end_ns - c.start_ns) > c.overlap_compute_ns && exposed_copies.size() < kMaxMarks) {
      exposed_copies.push_back(&c);
    }
    if (example < 0) example = launch != trace::kNoRow ? launch : st.cpu_op_row[c.row];
  }
  if (n == 0) return;
  int with = 0;
  for (int s : steps_with_copy) with += s;
  const double mean_step = ctx.steady_ns / ctx.steps();
  // "In the loop" means most steps copy, and the exposed part matters.
  if (with * 2 < static_cast<int>(ctx.steady.size()) || exposed / ctx.steps() < 0.02 * mean_step) return;
  Finding f = NewFinding("transfer-in-loop", Verdict::kInsufficientEvidence, st.rank);
  AddEvidence(f, "copies_per_step", Round3(n / ctx.steps()));
  AddEvidence(f, "bytes_per_step", static_cast<int64_t>(bytes / ctx.steps()));
  AddEvidence(f, "copy_ns_per_step", static_cast<int64_t>(ns / ctx.steps()));
  AddEvidence(f, "exposed_ns_per_step", static_cast<int64_t>(exposed / ctx.steps()));
  AddEvidence(f, "steps_with_copies", static_cast<int64_t>(with));
  AddEvidence(f, "missing", std::string("whether the data changes per step: prefetch on a side "
                                        "stream, or keep it on the device"));
  f.where.push_back(WhereOfRow(ctx, example));
  for (const analysis::CopyRow* c : exposed_copies) {
    AddMark(ctx, f, "copy not overlapped with compute", c->start_ns, c->end_ns,
            static_cast<int32_t>(c->row));
  }
  ctx.SetSaving(f, exposed);
  f.claimed = timeline::Subtract(timeline::IntervalSet::FromUnsorted(std::move(spans)), ctx.compute);
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
