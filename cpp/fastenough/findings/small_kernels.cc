// small-kernels: in steady steps, kernels shorter than their launch call (the
// host cannot launch them as fast as the device runs them) or shorter than
// 10 us. A step is launch-bound when the device is busy less than half of it
// while at least half of its kernels are short; only then is it a finding
// (short kernels on a well-fed device cost nothing). Saving bound: per short
// kernel, the launch time it does not cover (launch call - kernel), capped by
// the steady device idle.
#include <algorithm>
#include <map>
#include <string>

#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

namespace {
constexpr int64_t kShortNs = 10'000;
}

void DetectSmallKernels(const DetectContext& ctx, std::vector<Finding>& out) {
  const auto& st = ctx.store;
  int64_t kernels = 0, shorts = 0, uncovered = 0;
  std::map<std::string, int64_t> short_by_name;
  for (size_t i = 0; i < st.size(); ++i) {
    if (st.kind[i] != trace::EventKind::kKernel || !ctx.InSteady(st.ts_ns[i])) continue;
    ++kernels;
    const int32_t l = st.launch_row[i];
    const int64_t call = l != trace::kNoRow ? st.dur_ns[l] : 0;
    if (st.dur_ns[i] < call || st.dur_ns[i] < kShortNs) {
      ++shorts;
      uncovered += std::max<int64_t>(0, call - st.dur_ns[i]);
      short_by_name[std::string(st.name_of(i))] += 1;
    }
  }
  if (kernels == 0) return;
  const int64_t busy = timeline::Intersect(ctx.analysis.busy_all, ctx.steady_set).TotalLength();
  const double busy_share = ctx.steady_ns > 0 ? static_cast<double>(busy) / ctx.steady_ns : 0;
  const double short_share = static_cast<double>(shorts) / kernels;
  if (busy_share >= 0.5 || short_share < 0.5) return;
  Finding f = NewFinding("small-kernels", Verdict::kAvoidable, st.rank);
  AddEvidence(f, "kernels_per_step", Round3(kernels / ctx.steps()));
  AddEvidence(f, "short_kernels_per_step", Round3(shorts / ctx.steps()));
  AddEvidence(f, "short_kernel_share", Round3(short_share));
  AddEvidence(f, "device_busy_share", Round3(busy_share));
  AddEvidence(f, "short_kernel_threshold_ns", kShortNs);
  std::vector<std::pair<int64_t, std::string>> top;
  for (auto& [n, c] : short_by_name) top.push_back({c, n});
  std::sort(top.begin(), top.end(), [](auto& a, auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (size_t i = 0; i < top.size() && i < 3; ++i) {
    Location loc;
    loc.rank = st.rank;
    loc.kernel = top[i].second;
    f.where.push_back(loc);
  }
  ctx.SetSaving(f, std::min(uncovered, ctx.steady_ns - busy));
  // Its saving is device idle of the steady steps (what launches leave uncovered).
  f.claimed = timeline::Subtract(ctx.steady_set, ctx.analysis.busy_all);
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
