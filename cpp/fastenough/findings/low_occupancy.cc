// low-occupancy: a hot kernel that runs far below its device's capacity, from
// the launch figures CUPTI writes into each kernel's args
//   {"blocks per SM": 0.3, "warps per SM": 1.2, "est. achieved occupancy %": 2}
// (analysis/kernel_efficiency.h). Hot: at least 10% of the device's kernel
// time in the steady steps. Far below capacity: fewer thread blocks than SMs
// (blocks per SM < 1: some SMs have nothing to run for the whole kernel) or
// an estimated achieved occupancy above 0 and under 10% (under a tenth of the
// warps an SM can hold; CUPTI writes 0 when it cannot estimate). Duration-weighted over the kernel's steady calls.
// Collectives are left out: NCCL/RCCL run on a few blocks by design.
// Verdict insufficient-evidence: register-heavy GEMMs run at low occupancy by
// design and fast; only a kernel profile can tell (named in `missing`). No
// saving is claimed: it would be a guess from the occupancy, not measured time.
#include <string>

#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"
#include "fastenough/util/units.h"

namespace fastenough::findings {

namespace {
constexpr double kHotShare = 0.10;
constexpr double kLowOccupancyPct = 10.0;
}  // namespace

void DetectLowOccupancy(const DetectContext& ctx, std::vector<Finding>& out) {
  const auto& eff = ctx.analysis.efficiency;
  if (!eff.has_launch_args) return;
  std::vector<const analysis::KernelOccupancy*> low;
  double low_share = 0;
  for (const auto& k : eff.kernels) {  // heaviest first
    if (!(k.share_of_kernel_time >= kHotShare) || k.communication) continue;
    const bool small_grid = k.blocks_per_sm < 1.0;  // NaN compares false
    // 0 is CUPTI's answer when it cannot estimate (kernels with opt-in shared
    // memory above 48 KiB report 0): not a measurement.
    const bool low_occ = k.occupancy_pct > 0 && k.occupancy_pct < kLowOccupancyPct;
    if (!small_grid && !low_occ) continue;
    low.push_back(&k);
    low_share += k.share_of_kernel_time;
  }
  if (low.empty()) return;
  const analysis::KernelOccupancy& top = *low.front();
  int num_sms = 0, max_warps = 0;
  for (const auto& d : eff.devices) {
    if (d.device == top.device) {
      num_sms = d.num_sms;
      max_warps = d.max_warps_per_sm;
    }
  }
  Finding f = NewFinding("low-occupancy", Verdict::kInsufficientEvidence, ctx.store.rank);
  f.title = "Hot kernel " + std::string(top.blocks_per_sm < 1.0 ? "leaves SMs idle" : "runs at low occupancy") +
            " (" + util::FormatShare(top.share_of_kernel_time) + " of kernel time)";
  AddEvidence(f, "kernel", top.name);
  AddEvidence(f, "device", static_cast<int64_t>(top.device));
  AddEvidence(f, "share_of_kernel_time", Round3(top.share_of_kernel_time));
  AddEvidence(f, "kernel_ns_per_step", static_cast<int64_t>(top.total_ns / ctx.steps()));
  AddEvidence(f, "calls_per_step", Round3(top.count / ctx.steps()));
  if (top.occupancy_pct == top.occupancy_pct) AddEvidence(f, "est_achieved_occupancy_pct", Round3(top.occupancy_pct));
  if (top.blocks_per_sm == top.blocks_per_sm) AddEvidence(f, "blocks_per_sm", Round3(top.blocks_per_sm));
  if (top.warps_per_sm == top.warps_per_sm) AddEvidence(f, "warps_per_sm", Round3(top.warps_per_sm));
  if (max_warps > 0) AddEvidence(f, "max_warps_per_sm", static_cast<int64_t>(max_warps));
  if (num_sms > 0) AddEvidence(f, "num_sms", static_cast<int64_t>(num_sms));
  AddEvidence(f, "low_occupancy_kernels", static_cast<int64_t>(low.size()));
  AddEvidence(f, "low_occupancy_share_of_kernel_time", Round3(low_share));
  AddEvidence(f, "missing",
              std::string("a kernel profile (Nsight Compute / rocprof) of the kernel: achieved "
                          "occupancy, SM throughput and what limits the occupancy"));
  for (size_t i = 0; i < low.size() && i < 3; ++i) {
    Location loc;
    loc.rank = ctx.store.rank;
    loc.kernel = low[i]->name;
    f.where.push_back(loc);
  }
  out.push_back(std::move(f));
}

}  // namespace fastenough::findings
