// devices-take-turns: several devices in one process (layers placed across
// cards, a pipeline driven by one process) spend the steady steps working one
// after another: while one computes the others wait for its activations
// (analysis/device_turns.h). Fired when at least 30% of the steady time is
// spent so and overlapping the devices' work could save at least 10% of it;
// the saving is the upper bound the analysis gives (any device busy minus the
// busiest device's work). The time every device idles is not this finding's:
// gpu-idle-host-bound and the others explain it.
#include <string>

#include "fastenough/analysis/device_turns.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

bool WorthTurnsFinding(const analysis::DeviceTurns& t) {
  const double window = static_cast<double>(t.window_ns);
  return t.measured() && t.some_busy_ns >= 0.30 * window &&
         t.overlap_bound_ns() >= 0.10 * window;
}

void AddTurnsEvidence(Finding& f, const analysis::DeviceTurns& t, double steps,
                      std::string_view who) {
  std::string ids;
  size_t busiest = 0;
  for (size_t i = 0; i < t.devices.size(); ++i) {
    ids += (i ? ", " : "") + std::to_string(t.devices[i]);
    if (t.busy_ns[i] > t.busy_ns[busiest]) busiest = i;
  }
  const std::string one(who);
  AddEvidence(f, one + "s", ids);
  AddEvidence(f, "steps", static_cast<int64_t>(steps));
  AddEvidence(f, "all_busy_ns_per_step", static_cast<int64_t>(t.all_busy_ns / steps));
  AddEvidence(f, "taking_turns_ns_per_step", static_cast<int64_t>(t.some_busy_ns / steps));
  AddEvidence(f, "all_idle_ns_per_step", static_cast<int64_t>(t.all_idle_ns / steps));
  AddEvidence(f, "taking_turns_share",
              Round3(static_cast<double>(t.some_busy_ns) / static_cast<double>(t.window_ns)));
  AddEvidence(f, "busiest_" + one, static_cast<int64_t>(t.devices[busiest]));
  AddEvidence(f, "busiest_" + one + "_ns_per_step",
              static_cast<int64_t>(t.busy_ns[busiest] / steps));
}

void DetectDevicesTakeTurns(const DetectContext& ctx, std::vector<Finding>& out) {
  const analysis::DeviceTurns t = analysis::AnalyzeDeviceTurns(ctx.analysis.devices, ctx.steady);
  if (!WorthTurnsFinding(t)) return;
  Finding f = NewFinding("devices-take-turns", Verdict::kAvoidable, ctx.store.rank);
  AddTurnsEvidence(f, t, ctx.steps(), "device");
  Location loc;
  loc.rank = ctx.store.rank;
  f.where.push_back(loc);
  for (const auto& iv : t.turns.intervals()) {
    if (f.marks.size() >= kMaxMarks) break;
    AddMark(ctx, f, "one device works while the others wait", iv.start, iv.end);
  }
  ctx.SetSaving(f, t.overlap_bound_ns());
  f.claimed = t.turns;
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
