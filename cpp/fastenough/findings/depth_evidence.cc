// Evidence from the deeper analyses, added to the findings of one rank after
// every detector ran:
//   small-kernels    gpu_utilization, est_sm_efficiency, est_achieved_occupancy_pct
//                    (steady, the device with the most kernel time): short
//                    kernels on a device that is busy but barely filled
//   no-tensor-cores  tensor_core_share_of_kernel_time (steady, every device)
//   every finding whose covered time (coverage.h) is not empty, when the
//   rank's critical path was found:
//     critical_path_ns_per_step  |critical path ∩ covered time| per steady step
//     critical_path_share        the same over the path's length
//   every finding about events (coverage.h, IsAboutEvents), likewise:
//     own_critical_path_ns_per_step  the path's time on the finding's own events
// and the one change to a saving: a finding about events saves at most the
// path's time on its events plus the window's time the path cannot explain
// (`critical_path_unexplained_ns_per_step`: the window less the path's host,
// device and launch-delay time, i.e. host time outside ops, which the path
// crosses at no weight, and kernel gaps, waits for something the graph does
// not hold: another stream without an event edge, another rank). Time off the
// path shortens nothing; the unexplained time may be the finding's, so it is
// granted. Its saving is lowered to that share of the path's window where it
// claims more, and `uncapped_share_of_step` keeps what the detector measured.
// Findings about stretches of time (device idle, syncs, data loading) are not
// capped: what the path runs through during them is not theirs to remove.
#include <algorithm>
#include <cmath>
#include <optional>

#include "fastenough/findings/coverage.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

namespace {

// A saving below 1% of a step, once capped, is no longer avoidable waste.
constexpr double kNegligibleShare = 0.01;

void AddIfKnown(Finding& f, const char* key, double v) {
  if (std::isfinite(v)) AddEvidence(f, key, Round3(v));
}

// Lowers a saving to `cap` (a share of a step) where it claims more; total and
// per step scale with it.
void CapSaving(Finding& f, double cap) {
  Saving& sv = f.saving;
  if (sv.share_of_step <= 0 || sv.share_of_step <= cap + 1e-9) return;
  const double scale = std::max(0.0, cap) / sv.share_of_step;
  AddEvidence(f, "uncapped_share_of_step", Round3(sv.share_of_step));
  sv.share_of_step = std::max(0.0, cap);
  if (sv.per_step_ns > 0) sv.per_step_ns = static_cast<int64_t>(std::llround(sv.per_step_ns * scale));
  if (sv.total_ns > 0) sv.total_ns = static_cast<int64_t>(std::llround(sv.total_ns * scale));
  // Waste that shortens (almost) nothing is not avoidable waste: what bounds
  // it is the critical path, which runs elsewhere.
  if (f.verdict == Verdict::kAvoidable && sv.share_of_step < kNegligibleShare) f.verdict = Verdict::kBounded;
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
    const std::optional<int64_t> own = OwnCriticalPathTime(ctx, f);
    if (!own || cp.window_ns <= 0) continue;
    const int64_t explained = cp.host_ns + cp.device_ns + cp.launch_delay_ns;
    const int64_t unexplained = std::max<int64_t>(0, cp.window_ns - explained);
    AddEvidence(f, "own_critical_path_ns_per_step", static_cast<int64_t>(std::llround(*own / path_steps)));
    AddEvidence(f, "critical_path_unexplained_ns_per_step",
                static_cast<int64_t>(std::llround(unexplained / path_steps)));
    CapSaving(f, static_cast<double>(*own + unexplained) / static_cast<double>(cp.window_ns));
  }
}

}  // namespace fastenough::findings
