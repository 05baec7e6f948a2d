// Evidence from the deeper analyses, added to the findings of one rank after
// every detector ran (so that no detector's saving changes):
//   small-kernels    gpu_utilization, est_sm_efficiency, est_achieved_occupancy_pct
//                    (steady, the device with the most kernel time): short
//                    kernels on a device that is busy but barely filled
//   no-tensor-cores  tensor_core_share_of_kernel_time (steady, every device)
//   every finding whose covered time (coverage.h) is not empty, when the
//   rank's critical path was found:
//     critical_path_ns_per_step  |critical path ∩ covered time| per steady step
//     critical_path_share        the same over the path's length
// Evidence only, not yet a cap on the saving: time off the path shortens
// nothing, but the lightweight path follows ops, launches and kernels and
// misses host time outside ops (a DataLoader's Python collation: 27 µs of
// dcgan's 6.9 ms wait), so capping by it would shrink real savings.
#include <algorithm>
#include <cmath>

#include "fastenough/findings/coverage.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

namespace {

void AddIfKnown(Finding& f, const char* key, double v) {
  if (std::isfinite(v)) AddEvidence(f, key, Round3(v));
}

}  // namespace

void AddDepthEvidence(const DetectContext& ctx, const timeline::IntervalSet& explained,
                      std::vector<Finding>& out) {
  const auto& eff = ctx.analysis.efficiency;
  const analysis::DeviceEfficiency* main = nullptr;
  int64_t kernel_ns = 0, tc_ns = 0;
  for (const auto& d : eff.devices) {
    if (main == nullptr || d.steady.kernel_ns > main->steady.kernel_ns) main = &d;
    kernel_ns += d.steady.kernel_ns;
    tc_ns += d.steady.tensor_core_ns;
  }
  const auto& cp = ctx.analysis.critical_path;
  const bool has_path = cp.status == "ok" && cp.length_ns > 0;
  for (Finding& f : out) {
    if (f.code == "small-kernels" && main != nullptr) {
      AddIfKnown(f, "gpu_utilization", main->steady.gpu_utilization);
      AddIfKnown(f, "est_sm_efficiency", main->steady.sm_efficiency);
      AddIfKnown(f, "est_achieved_occupancy_pct", main->steady.achieved_occupancy_pct);
    }
    if (f.code == "no-tensor-cores" && kernel_ns > 0) {
      AddEvidence(f, "tensor_core_share_of_kernel_time",
                  Round3(static_cast<double>(tc_ns) / static_cast<double>(kernel_ns)));
    }
    if (!has_path) continue;
    const timeline::IntervalSet covered = FindingCoverage(ctx, f, explained);
    if (covered.empty()) continue;
    const int64_t on_path = analysis::CriticalPathOverlap(cp, covered);
    // Per step of the path's window (at most kCriticalPathMaxSteps steady steps).
    const double path_steps = static_cast<double>(std::max<size_t>(1, cp.steps.size()));
    AddEvidence(f, "critical_path_ns_per_step", static_cast<int64_t>(std::llround(on_path / path_steps)));
    AddEvidence(f, "critical_path_share",
                Round3(static_cast<double>(on_path) / static_cast<double>(cp.length_ns)));
  }
}

}  // namespace fastenough::findings
