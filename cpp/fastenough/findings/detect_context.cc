#include "fastenough/findings/detect_context.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace fastenough::findings {

DetectContext::DetectContext(const trace::EventStore& s, const analysis::RankAnalysis& a,
                             const analysis::SourceFrames* source_frames)
    : DetectContext(s, a, source_frames, analysis::BuildCallTree(s)) {}

DetectContext::DetectContext(const trace::EventStore& s, const analysis::RankAnalysis& a,
                             const analysis::SourceFrames* source_frames,
                             analysis::CallTree call_tree)
    : store(s), analysis(a), frames(source_frames), tree(std::move(call_tree)) {
  const auto& steps_all = a.steps.steps;
  for (size_t i = a.steps.steady_begin; i < steps_all.size(); ++i) {
    steady.push_back(steps_all[i].window);
  }
  has_steps = !steady.empty();
  if (!has_steps) {
    // No ProfilerStep#N: the whole trace is one window (per-step = total).
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.kind[i] == trace::EventKind::kOther) continue;
      lo = std::min(lo, s.ts_ns[i]);
      hi = std::max(hi, s.end_ns(i));
    }
    if (lo < hi) steady.push_back({-1, lo, hi, 0});
  }
  std::vector<timeline::Interval> iv;
  std::vector<int64_t> durs;
  for (const auto& w : steady) {
    iv.push_back({w.start_ns, w.end_ns});
    durs.push_back(w.dur_ns());
  }
  steady_set = timeline::IntervalSet::FromUnsorted(std::move(iv));
  steady_ns = steady_set.TotalLength();
  if (!durs.empty()) {
    std::sort(durs.begin(), durs.end());
    const size_t m = durs.size() / 2;
    median_step_ns = durs.size() % 2 ? static_cast<double>(durs[m])
                                     : (static_cast<double>(durs[m - 1]) + durs[m]) / 2.0;
  }
  compute = analysis::ComputeUnion(s);
  syncs = analysis::FindSyncs(s, tree, a.busy_all);
  for (const auto& sy : syncs) {
    if (sy.cause_op >= 0) sync_cause_ops.insert(sy.cause_op);
  }
  for (const auto& d : s.device_properties) max_compute_major = std::max(max_compute_major, d.compute_major);
}

int DetectContext::StepOf(int64_t t) const {
  auto it = std::upper_bound(steady.begin(), steady.end(), t,
                             [](int64_t x, const timeline::StepWindow& w) { return x < w.start_ns; });
  if (it == steady.begin()) return -1;
  --it;
  if (t >= it->end_ns) return -1;
  return static_cast<int>(it - steady.begin());
}

void DetectContext::SetSaving(Finding& f, int64_t total_ns) const {
  f.saving.total_ns = total_ns;
  f.saving.upper_bound = true;
  if (steady.empty()) return;
  f.saving.per_step_ns = static_cast<int64_t>(std::llround(total_ns / steps()));
  const double mean_step = static_cast<double>(steady_ns) / steps();
  if (mean_step > 0) f.saving.share_of_step = std::min(1.0, (total_ns / steps()) / mean_step);
}

bool DetectContext::UnderSyncCause(int32_t row) const {
  for (int32_t p = row; p != trace::kNoRow; p = tree.parent[p]) {
    if (sync_cause_ops.count(p)) return true;
  }
  return false;
}

}  // namespace fastenough::findings
