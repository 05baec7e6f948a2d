// dataloader-bound: host time in the DataLoader's next() while the device
// idles. torch.profiler wraps it as
//   {"cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"}
// (also multi-process iterators). Saving bound: device idle during those
// ranges inside steady steps (a faster loader or prefetch could fill it); in a
// trace without device activity, the loader's time inside steady steps.
//
// Without a device (a CPU rank, a gloo job) a loaded machine stretches a
// step's loading now and then (the DDP tutorial's equal ranks at load 5: 0.9
// ms of loading in most steps, 4.6 and 5.9 ms in one each), which is the
// scheduler's, not the loader's: the loader must hold the loop in nearly
// every steady step (the 10th percentile of the steps' loading at least 5% of
// the median steady step). On a host-only job of several ranks, a rank's
// loading in nearly every step must also exceed the other ranks' typical
// loading by 10% of a step (KeepLoaderWaitsBeyondTheOtherRanks): equal ranks
// over the same in-memory data load alike (about 10% of the tutorial's loaded
// step each, which a CPU loop has no spare core to hide), and a rank whose
// loader sleeps 40 ms a batch stands out by that much. A single CPU process
// keeps its finding: an in-memory TensorDataset indexed item by item costs
// the loop that time (ema-deepcopy: 37% claimed, 13.9% measured by ab with
// one batched index a step, bench/calibrate_savings.md).
#include <algorithm>

#include "fastenough/analysis/op_roles.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detect_all.h"
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
  int64_t every_step_ns = 0;  // CPU only: the loading of nearly every steady step
  if (!device) {
    std::vector<int64_t> per_step, step_ns;
    for (const auto& w : ctx.steady) {
      per_step.push_back(dl.LengthWithin(w.start_ns, w.end_ns));
      step_ns.push_back(w.dur_ns());
    }
    every_step_ns = stats::QuantileNs(per_step, 0.10);
    if (every_step_ns < 0.05 * stats::Median(step_ns)) return;
  }
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
    AddEvidence(f, "loop_wait_in_nearly_every_step_ns", every_step_ns);
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

namespace fastenough::findings {

void KeepLoaderWaitsBeyondTheOtherRanks(const std::vector<const analysis::RankAnalysis*>& ranks,
                                        const std::vector<std::vector<Finding>*>& findings) {
  if (ranks.size() < 2 || ranks.size() != findings.size() || !HostOnlyJob(ranks)) return;
  // Per rank: its loading in nearly every step (10th percentile) and in a
  // typical one (median): a rank's nearly-every-step against the others'
  // typical, since the breakdown books an instant once and a step where gloo's
  // all-reduce overlapped the loader reads 0 ms of loading (the tutorial's
  // rank 1 in 2 of 11 steps, beside 0.85-1.1 ms in the others).
  std::vector<double> held, usual, medians;
  for (const analysis::RankAnalysis* ra : ranks) {
    const analysis::StepBreakdown& sb = ra->step_breakdown;
    std::vector<int64_t> loading, steps;
    // Not the window's last step (load-imbalance: the profiler's stop).
    for (size_t i = sb.steady_begin; i + 1 < sb.steps.size(); ++i) {
      loading.push_back(sb.steps[i].ns[static_cast<size_t>(analysis::StepCategory::kDataLoader)]);
      steps.push_back(sb.steps[i].end_ns - sb.steps[i].start_ns);
    }
    if (sb.whole_trace || loading.empty()) return;  // nothing to compare by
    held.push_back(stats::Quantile(loading, 0.10));
    usual.push_back(stats::Median(std::move(loading)));
    medians.push_back(stats::Median(std::move(steps)));
  }
  const double step = stats::Median(medians);
  for (size_t r = 0; r < ranks.size(); ++r) {
    std::vector<double> others;
    for (size_t o = 0; o < ranks.size(); ++o) {
      if (o != r) others.push_back(usual[o]);
    }
    const double typical = stats::Median(std::move(others));
    auto& list = *findings[r];
    for (auto it = list.begin(); it != list.end();) {
      if (it->code != "dataloader-bound") {
        ++it;
      } else if (held[r] - typical < 0.10 * step) {
        it = list.erase(it);  // the other ranks' loaders hold them as long
      } else {
        AddEvidence(*it, "other_ranks_loading_per_step_ns", static_cast<int64_t>(typical));
        ++it;
      }
    }
  }
}

}  // namespace fastenough::findings
