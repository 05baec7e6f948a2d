// dataloader-bound: host time in the DataLoader's next() while the device
// idles. torch.profiler wraps it as
//   {"cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"}
// (also multi-process iterators). Saving bound: device idle during those
// ranges inside steady steps (a faster loader or prefetch could fill it); in a
// trace without device activity, the loader's time inside steady steps that
// its own ops do not fill, as much of it as holds nearly every step (below).
//
// Without a device (a CPU rank, a gloo job) the loader's ops are CPU work like
// the step's: a worker process would need a core for them, and such a loop
// has none spare. What a worker could hide is the time the main thread is
// held in next() outside any op (a sleep, a read, a wait on a worker's queue).
// A loaded machine stretches that time too, now and then (the DDP tutorial's
// equal ranks at load 5: 0.9 ms of loading in most steps, 4.6 and 5.9 ms in
// one each, about 80% of it in aten::select and aten::stack), so the finding
// reads the wait of nearly every steady step (its 10th percentile) and needs
// it to be at least 10% of the median steady step.
#include <algorithm>

#include "fastenough/analysis/op_roles.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"
#include "fastenough/stats/quantile.h"

namespace fastenough::findings {

void DetectDataloaderBound(const DetectContext& ctx, std::vector<Finding>& out,
                           timeline::IntervalSet& explained) {
  const auto& st = ctx.store;
  std::vector<uint8_t> is_dl(st.strings().size(), 0);
  bool any = false;
  for (StringId id = 1; id < st.strings().size(); ++id) {
    const std::string_view s = st.strings().Get(id);
    if (s.rfind("enumerate(DataLoader)", 0) == 0 || analysis::IsDataLoadingName(s) ||
        (s.find("DataLoader") != std::string_view::npos && s.find("__next__") != std::string_view::npos)) {
      is_dl[id] = 1;
      any = true;
    }
  }
  if (!any) return;
  std::vector<timeline::Interval> iv;
  std::vector<int64_t> loader_tids;
  int64_t calls = 0;
  int32_t example = -1;
  for (size_t i = 0; i < st.size(); ++i) {
    if (!is_dl[st.name[i]] || trace::IsDeviceActivity(st.kind[i])) continue;
    if (st.kind[i] == trace::EventKind::kGpuUserAnnotation) continue;
    if (!ctx.InSteady(st.ts_ns[i])) continue;
    iv.push_back({st.ts_ns[i], st.end_ns(i)});
    loader_tids.push_back(st.tid[i]);
    ++calls;
    if (example < 0) example = static_cast<int32_t>(i);
  }
  if (calls == 0) return;
  const auto dl = timeline::IntervalSet::FromUnsorted(std::move(iv));
  // With a device, the waste is the device idling while the loader works; a
  // CPU-only program has no device to idle: the loop itself waits, for what
  // its ops inside next() do not fill (see the top).
  const bool device = !ctx.analysis.devices.empty();
  timeline::IntervalSet held = dl;
  int64_t every_step_ns = 0;  // CPU only: the wait of nearly every steady step
  if (!device) {
    std::sort(loader_tids.begin(), loader_tids.end());
    std::vector<timeline::Interval> ops;
    for (size_t i = 0; i < st.size(); ++i) {
      if (st.kind[i] != trace::EventKind::kCpuOp || st.dur_ns[i] <= 0) continue;
      if (!std::binary_search(loader_tids.begin(), loader_tids.end(), st.tid[i])) continue;
      ops.push_back({st.ts_ns[i], st.end_ns(i)});
    }
    held = timeline::Subtract(dl, timeline::IntervalSet::FromUnsorted(std::move(ops)));
    std::vector<int64_t> per_step, step_ns;
    for (const auto& w : ctx.steady) {
      per_step.push_back(held.LengthWithin(w.start_ns, w.end_ns));
      step_ns.push_back(w.dur_ns());
    }
    every_step_ns = stats::QuantileNs(per_step, 0.10);
    if (every_step_ns < 0.10 * stats::Median(step_ns)) return;
  }
  const auto idle = device
      ? timeline::Intersect(timeline::Subtract(dl, ctx.analysis.busy_all), ctx.steady_set)
      : timeline::Intersect(held, ctx.steady_set);
  const int64_t idle_ns = idle.TotalLength();
  const double mean_step = ctx.steady_ns / ctx.steps();
  if (idle_ns / ctx.steps() < 0.05 * mean_step) return;
  Finding f = NewFinding("dataloader-bound", Verdict::kAvoidable, st.rank);
  AddEvidence(f, "next_calls_per_step", Round3(calls / ctx.steps()));
  AddEvidence(f, "dataloader_ns_per_step", static_cast<int64_t>(dl.TotalLength() / ctx.steps()));
  if (device) {
    AddEvidence(f, "device_idle_in_dataloader_ns_per_step",
                static_cast<int64_t>(idle_ns / ctx.steps()));
  } else {
    AddEvidence(f, "loop_wait_in_dataloader_ns_per_step", static_cast<int64_t>(idle_ns / ctx.steps()));
    AddEvidence(f, "loop_wait_in_nearly_every_step_ns", every_step_ns);
    f.title = "Steps wait for the next batch (no device: the loop itself waits)";
  }
  Location loc = WhereOfRow(ctx, example);
  loc.op = std::string(st.name_of(example));
  f.where.push_back(loc);
  // Without a device, what holds nearly every step (a stretched step's extra
  // wait is the machine's, not the loader's).
  ctx.SetSaving(f, device ? idle_ns : std::min<int64_t>(
      idle_ns, static_cast<int64_t>(every_step_ns * ctx.steps())));
  f.claimed = idle;
  explained = timeline::Union(explained, idle);
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
