// dataloader-bound: host time in the DataLoader's next() while the device
// idles. torch.profiler wraps it as
//   {"cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"}
// (also multi-process iterators). Saving bound: device idle during those
// ranges inside steady steps (a faster loader or prefetch could fill it); in a
// trace without device activity, the loader's time inside steady steps.
#include "fastenough/analysis/op_roles.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"

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
  int64_t calls = 0;
  int32_t example = -1;
  for (size_t i = 0; i < st.size(); ++i) {
    if (!is_dl[st.name[i]] || trace::IsDeviceActivity(st.kind[i])) continue;
    if (st.kind[i] == trace::EventKind::kGpuUserAnnotation) continue;
    if (!ctx.InSteady(st.ts_ns[i])) continue;
    iv.push_back({st.ts_ns[i], st.end_ns(i)});
    ++calls;
    if (example < 0) example = static_cast<int32_t>(i);
  }
  if (calls == 0) return;
  const auto dl = timeline::IntervalSet::FromUnsorted(std::move(iv));
  // With a device, the waste is the device idling while the loader works; a
  // CPU-only program has no device to idle: the loop itself waits.
  const bool device = !ctx.analysis.devices.empty();
  const auto idle = device
      ? timeline::Intersect(timeline::Subtract(dl, ctx.analysis.busy_all), ctx.steady_set)
      : timeline::Intersect(dl, ctx.steady_set);
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
    f.title = "Steps wait for the next batch (no device: the loop itself waits)";
  }
  Location loc = WhereOfRow(ctx, example);
  loc.op = std::string(st.name_of(example));
  f.where.push_back(loc);
  ctx.SetSaving(f, idle_ns);
  f.claimed = idle;
  explained = timeline::Union(explained, idle);
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
