// ops-near-roof: the evidence for "bounded under the current protocol" on a
// device-bound rank (issue 38 item 3). The rank's devices are busy at least
// kDeviceBoundBusy (85%) of the steady steps, and its hot roofline rows
// (roofline_causes.h: at least 5% of the rank's device time each) that run
// at kNearRoofPct (70%) of the roof that binds them or more hold at least
// kNearRoofDeviceShare (half) of the rank's device time: the device does the
// work at close to what it can at these shapes and dtypes. Verdict bounded, no
// saving: only less work (shapes, dtype, fusion that removes memory traffic)
// or another device makes these ops faster. Rows without peaks (no
// deviceProperties, an unknown device) have no roof and count for nothing.
#include <algorithm>
#include <cmath>
#include <string>

#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"
#include "fastenough/findings/roofline_causes.h"
#include "fastenough/util/units.h"

namespace fastenough::findings {

void DetectOpsNearRoof(const DetectContext& ctx, std::vector<Finding>& out) {
  if (ctx.roofline == nullptr || ctx.roofline->ops.empty() || ctx.steady_ns <= 0) return;
  const int64_t device_ns = DeviceActivityNs(ctx.store);
  if (device_ns <= 0) return;
  std::vector<const roofline::OpRoofline*> near;
  int64_t near_ns = 0;
  for (const auto& row : ctx.roofline->ops) {  // heaviest first
    const double pct = roofline::PctOfBindingRoof(row);
    if (!std::isfinite(pct) || pct < kNearRoofPct) continue;
    if (static_cast<double>(row.device_ns) < kRoofHotShare * static_cast<double>(device_ns)) continue;
    near.push_back(&row);
    near_ns += row.device_ns;
  }
  if (near.empty()) return;
  const double near_share = static_cast<double>(near_ns) / static_cast<double>(device_ns);
  if (near_share < kNearRoofDeviceShare) return;
  const double busy =
      static_cast<double>(timeline::Intersect(ctx.analysis.busy_all, ctx.steady_set).TotalLength()) /
      static_cast<double>(ctx.steady_ns);
  if (busy < kDeviceBoundBusy) return;
  const roofline::OpRoofline& top = *near.front();
  Finding f = NewFinding("ops-near-roof", Verdict::kBounded, ctx.store.rank);
  f.title = "Hot ops run near the device's roof (" + util::FormatShare(near_share) +
            " of device time at " + std::to_string(static_cast<int>(kNearRoofPct)) + "% of their roof or more)";
  AddEvidence(f, "device_busy_share", Round3(std::min(1.0, busy)));
  AddEvidence(f, "near_roof_share_of_device_time", Round3(near_share));
  AddEvidence(f, "near_roof_ops", static_cast<int64_t>(near.size()));
  AddEvidence(f, "near_roof_threshold_pct", kNearRoofPct);
  AddEvidence(f, "op", top.op);
  AddEvidence(f, "input_dims", top.input_dims);
  AddEvidence(f, "input_types", top.input_types);
  AddEvidence(f, "pct_of_roof", Round3(roofline::PctOfBindingRoof(top)));
  AddEvidence(f, "roof", top.bound);
  AddEvidence(f, "peak_dtype", top.peak.dtype);
  AddEvidence(f, "bounded_by",
              std::string("the device's ") + (top.bound == "compute" ? "compute" : "memory") +
                  " roof at these ops' shapes and dtypes");
  for (const roofline::OpRoofline* r : near) {
    if (f.where.size() == 3) break;
    if (std::any_of(f.where.begin(), f.where.end(), [&](const Location& w) { return w.op == r->op; })) {
      continue;
    }
    Location loc;
    loc.rank = ctx.store.rank;
    loc.op = r->op;
    f.where.push_back(std::move(loc));
  }
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
