#include "fastenough/findings/coverage.h"

#include <cctype>
#include <set>
#include <string>

#include "fastenough/analysis/memcpy.h"
#include "fastenough/analysis/op_roles.h"

namespace fastenough::findings {

namespace {

using timeline::Interval;
using timeline::IntervalSet;
using trace::EventKind;

// Steady device ops `take` accepts, their launch calls, and the launch delays
// and kernel gaps before them on the critical path (a graph replay's call is
// shared by its kernels, so a launch-to-end span would claim the whole replay).
template <typename Take>
IntervalSet DeviceOps(const DetectContext& ctx, Take take) {
  const auto& s = ctx.store;
  std::vector<Interval> iv;
  std::vector<uint8_t> taken(s.size(), 0);
  for (size_t i = 0; i < s.size(); ++i) {
    if (!trace::IsDeviceActivity(s.kind[i]) || !ctx.InSteady(s.ts_ns[i]) || !take(i)) continue;
    taken[i] = 1;
    iv.push_back({s.ts_ns[i], s.end_ns(i)});
    const int32_t l = s.launch_row[i];
    if (l != trace::kNoRow) iv.push_back({s.ts_ns[l], s.end_ns(l)});
  }
  for (const auto& seg : ctx.analysis.critical_path.segments) {
    if ((seg.kind == analysis::PathKind::kLaunchDelay || seg.kind == analysis::PathKind::kKernelGap) &&
        seg.row >= 0 && taken[static_cast<size_t>(seg.row)]) {
      iv.push_back({seg.start_ns, seg.end_ns});
    }
  }
  return IntervalSet::FromUnsorted(std::move(iv));
}

// The steady instances of the kernels and host ops `where` names.
IntervalSet Named(const DetectContext& ctx, const Finding& f) {
  std::set<std::string> kernels, ops;
  for (const Location& w : f.where) {
    if (!w.kernel.empty()) kernels.insert(w.kernel);
    else if (!w.op.empty()) ops.insert(w.op);
  }
  if (kernels.empty() && ops.empty()) return {};
  const auto& s = ctx.store;
  std::vector<int8_t> wanted(s.strings().size(), -1);
  std::vector<Interval> iv;
  for (size_t i = 0; i < s.size(); ++i) {
    const EventKind k = s.kind[i];
    const bool kernel = k == EventKind::kKernel;
    if (!kernel && k != EventKind::kCpuOp) continue;
    int8_t& w = wanted[s.name[i]];
    if (w < 0) {
      const std::string n(s.name_of(i));
      w = (kernels.count(n) ? 1 : 0) | (ops.count(n) ? 2 : 0);
    }
    if (!(w & (kernel ? 1 : 2)) || !ctx.InSteady(s.ts_ns[i])) continue;
    iv.push_back({s.ts_ns[i], s.end_ns(i)});
  }
  return IntervalSet::FromUnsorted(std::move(iv));
}

}  // namespace

IntervalSet FindingCoverage(const DetectContext& ctx, const Finding& f, const IntervalSet& explained) {
  const auto& s = ctx.store;
  if (f.code == "gpu-idle-host-bound") {
    // The whole-device host-wait idle it counts (after what others explain).
    std::vector<Interval> hw;
    for (const auto& d : ctx.analysis.devices) {
      for (const auto& st : d.streams) {
        for (const auto& g : st.gaps) {
          if (g.kind == analysis::GapKind::kHostWait) hw.push_back({g.start_ns, g.end_ns});
        }
      }
    }
    IntervalSet idle = timeline::Subtract(IntervalSet::FromUnsorted(std::move(hw)), ctx.analysis.busy_all);
    return timeline::Subtract(timeline::Intersect(idle, ctx.steady_set), explained);
  }
  if (f.code == "small-kernels") {
    // Kernels shorter than their launch call or than 10 us (the detector's
    // rule), their launch calls and the launch delays before them.
    return DeviceOps(ctx, [&](size_t i) {
      if (s.kind[i] != EventKind::kKernel) return false;
      const int32_t l = s.launch_row[i];
      const int64_t call = l != trace::kNoRow ? s.dur_ns[l] : 0;
      return s.dur_ns[i] < call || s.dur_ns[i] < 10'000;
    });
  }
  if (f.code == "pageable-memcpy" || f.code == "transfer-in-loop") {
    return DeviceOps(ctx, [&](size_t i) {
      if (s.kind[i] != EventKind::kMemcpy) return false;
      const auto d = analysis::ParseCopyDirection(s.name_of(i));
      return d == analysis::CopyDirection::kHtoD || d == analysis::CopyDirection::kDtoH;
    });
  }
  if (f.code == "no-tensor-cores") {
    // GEMM kernels that are not tensor-core kernels (op_roles.h).
    std::vector<int8_t> fp32(s.strings().size(), -1);
    return DeviceOps(ctx, [&](size_t i) {
      if (s.kind[i] != EventKind::kKernel) return false;
      int8_t& d = fp32[s.name[i]];
      if (d < 0) {
        std::string n(s.name_of(i));
        for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        d = n.find("gemm") != std::string::npos && !analysis::IsTensorCoreKernelName(n) ? 1 : 0;
      }
      return d == 1;
    });
  }
  if (f.code == "sync-in-loop") {
    // Each steady sync call and the device idle hole after it.
    std::vector<Interval> iv;
    for (const auto& sy : ctx.syncs) {
      if (!ctx.InSteady(sy.start_ns)) continue;
      iv.push_back({sy.start_ns, sy.end_ns});
      if (sy.idle_after.end > sy.idle_after.start) iv.push_back(sy.idle_after);
    }
    return IntervalSet::FromUnsorted(std::move(iv));
  }
  if (f.code == "dataloader-bound") {
    std::vector<Interval> iv;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.kind[i] != EventKind::kUserAnnotation && s.kind[i] != EventKind::kCpuOp) continue;
      const std::string_view n = s.name_of(i);
      const bool dl = analysis::IsDataLoadingName(n) || n.rfind("enumerate(DataLoader)", 0) == 0 ||
                      (n.find("DataLoader") != std::string_view::npos &&
                       n.find("__next__") != std::string_view::npos);
      if (dl && ctx.InSteady(s.ts_ns[i])) iv.push_back({s.ts_ns[i], s.end_ns(i)});
    }
    return IntervalSet::FromUnsorted(std::move(iv));
  }
  if (f.code == "memory-near-limit") return {};  // a limit, not time
  return Named(ctx, f);
}

}  // namespace fastenough::findings
