#include "fastenough/findings/coverage.h"

#include <cctype>
#include <functional>
#include <memory>
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
IntervalSet DeviceOps(const DetectContext& ctx, const std::function<bool(size_t)>& take) {
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

using Take = std::function<bool(size_t)>;

// The device ops a code's saving comes from (an empty function: the code is
// not about device ops).
Take DeviceOpsOf(const DetectContext& ctx, const Finding& f) {
  const auto& s = ctx.store;
  const std::string& code = f.code;
  if (code == "gemm-wave-quantization" || code == "gemm-dims-unaligned" ||
      code == "gemm-memory-bound-shape" || code == "attention-short-sequence" ||
      code == "fp32-in-mixed-precision") {
    // The below-roof findings (below_roof.cc): the device activity of the op
    // calls they name, whose spans they claim.
    const timeline::IntervalSet* claimed = &f.claimed;
    return [&s, claimed](size_t i) {
      const int64_t mid = s.ts_ns[i] + s.dur_ns[i] / 2;
      return claimed->LengthWithin(mid, mid + 1) > 0;
    };
  }
  if (code == "small-kernels") {
    // Kernels shorter than their launch call or than 10 us (the detector's rule).
    return [&s](size_t i) {
      if (s.kind[i] != EventKind::kKernel) return false;
      const int32_t l = s.launch_row[i];
      const int64_t call = l != trace::kNoRow ? s.dur_ns[l] : 0;
      return s.dur_ns[i] < call || s.dur_ns[i] < 10'000;
    };
  }
  if (code == "pageable-memcpy" || code == "transfer-in-loop") {
    return [&s](size_t i) {
      if (s.kind[i] != EventKind::kMemcpy) return false;
      const auto d = analysis::ParseCopyDirection(s.name_of(i));
      return d == analysis::CopyDirection::kHtoD || d == analysis::CopyDirection::kDtoH;
    };
  }
  if (code == "no-tensor-cores") {
    // GEMM kernels that are not tensor-core kernels (op_roles.h).
    auto fp32 = std::make_shared<std::vector<int8_t>>(s.strings().size(), -1);
    return [&s, fp32](size_t i) {
      if (s.kind[i] != EventKind::kKernel) return false;
      int8_t& d = (*fp32)[s.name[i]];
      if (d < 0) {
        std::string n(s.name_of(i));
        for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        d = n.find("gemm") != std::string::npos && !analysis::IsTensorCoreKernelName(n) ? 1 : 0;
      }
      return d == 1;
    };
  }
  return {};
}

// Rows of the kernels and host ops `where` names (1 each), all rows 0 when it
// names none. A place that names both a kernel and the op that launched it
// counts as the kernel, unless `both`.
std::vector<uint8_t> NamedRows(const DetectContext& ctx, const Finding& f, bool both = false) {
  std::set<std::string> kernels, ops;
  for (const Location& w : f.where) {
    if (!w.kernel.empty()) kernels.insert(w.kernel);
    if (!w.op.empty() && (both || w.kernel.empty())) ops.insert(w.op);
  }
  const auto& s = ctx.store;
  std::vector<uint8_t> rows(s.size(), 0);
  if (kernels.empty() && ops.empty()) return rows;
  std::vector<int8_t> wanted(s.strings().size(), -1);
  for (size_t i = 0; i < s.size(); ++i) {
    const EventKind k = s.kind[i];
    const bool kernel = k == EventKind::kKernel;
    if (!kernel && k != EventKind::kCpuOp) continue;
    int8_t& w = wanted[s.name[i]];
    if (w < 0) {
      const std::string n(s.name_of(i));
      w = (kernels.count(n) ? 1 : 0) | (ops.count(n) ? 2 : 0);
    }
    if (w & (kernel ? 1 : 2)) rows[i] = 1;
  }
  return rows;
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
  if (const Take take = DeviceOpsOf(ctx, f)) return DeviceOps(ctx, take);
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
  const std::vector<uint8_t> named = NamedRows(ctx, f);
  std::vector<Interval> iv;
  for (size_t i = 0; i < s.size(); ++i) {
    if (named[i] && ctx.InSteady(s.ts_ns[i])) iv.push_back({s.ts_ns[i], s.end_ns(i)});
  }
  return IntervalSet::FromUnsorted(std::move(iv));
}

std::optional<int64_t> OwnCriticalPathTime(const DetectContext& ctx, const Finding& f) {
  if (!IsAboutEvents(f.code)) return std::nullopt;
  const auto& s = ctx.store;
  std::vector<uint8_t> own(s.size(), 0);
  if (const Take take = DeviceOpsOf(ctx, f)) {
    // The device ops and their launch calls.
    for (size_t i = 0; i < s.size(); ++i) {
      if (!trace::IsDeviceActivity(s.kind[i]) || !take(i)) continue;
      own[i] = 1;
      if (s.launch_row[i] != trace::kNoRow) own[static_cast<size_t>(s.launch_row[i])] = 1;
    }
  } else {
    // The named kernels and their launch calls, the named ops with everything
    // inside them (the path gives an op only the time between its children),
    // and the device ops those launched.
    own = NamedRows(ctx, f, /*both=*/true);
    for (size_t i = 0; i < s.size(); ++i) {
      if (own[i] && trace::IsDeviceActivity(s.kind[i]) && s.launch_row[i] != trace::kNoRow) {
        own[static_cast<size_t>(s.launch_row[i])] = 1;
      }
    }
    // The call tree's pre-order walk reaches a slice after its parent.
    for (const uint32_t r : ctx.tree.host_order) {
      const int32_t p = ctx.tree.parent[r];
      if (p != trace::kNoRow && own[static_cast<size_t>(p)]) own[r] = 1;
    }
    for (size_t i = 0; i < s.size(); ++i) {
      const int32_t l = s.launch_row[i];
      if (trace::IsDeviceActivity(s.kind[i]) && l != trace::kNoRow && own[static_cast<size_t>(l)]) own[i] = 1;
    }
  }
  int64_t on_path = 0;
  for (const auto& seg : ctx.analysis.critical_path.segments) {
    if (seg.kind == analysis::PathKind::kKernelGap) continue;  // a wait the graph cannot explain
    if (seg.row >= 0 && own[static_cast<size_t>(seg.row)]) on_path += seg.end_ns - seg.start_ns;
  }
  return on_path;
}

bool IsAboutEvents(std::string_view code) {
  // Stretches of time, a limit, or (devices-take-turns) work to overlap
  // rather than remove.
  return code != "gpu-idle-host-bound" && code != "sync-in-loop" && code != "dataloader-bound" &&
         code != "memory-near-limit" && code != "devices-take-turns";
}

}  // namespace fastenough::findings
