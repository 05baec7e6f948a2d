// memory-near-limit from a trace recorded with profile_memory=True: the
// allocator's reserved peak of a CUDA device ("Total Reserved" of its
// [memory] events, analysis/memory_timeline.h) reached 90% of the device's
// memory (deviceProperties "totalGlobalMem"), the agent's threshold.
// Verdict bounded, no saving: a limit, not waste. Reserved minus allocated is
// the allocator's cache, reported beside it, not a leak.
#include <cstdio>
#include <string>

#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"
#include "fastenough/util/units.h"

namespace fastenough::findings {

namespace {
constexpr double kNearLimitShare = 0.90;
}  // namespace

void DetectMemoryNearLimit(const DetectContext& ctx, std::vector<Finding>& out) {
  for (const auto& m : ctx.analysis.memory) {
    if (m.device_type != 1 || m.capacity_bytes <= 0 || m.peak_reserved_bytes < 0) continue;
    const double share = static_cast<double>(m.peak_reserved_bytes) / static_cast<double>(m.capacity_bytes);
    if (share < kNearLimitShare) continue;
    Finding f = NewFinding("memory-near-limit", Verdict::kBounded, ctx.store.rank);
    f.source = "trace";
    f.title = "Peak memory is " + util::FormatShare(share) + " of capacity on " + m.device;
    AddEvidence(f, "peak_bytes", m.peak_reserved_bytes);
    AddEvidence(f, "capacity_bytes", m.capacity_bytes);
    AddEvidence(f, "reserved_peak_bytes", m.peak_reserved_bytes);
    AddEvidence(f, "alloc_peak_bytes", m.peak_allocated_bytes);
    if (m.reserved_at_peak_bytes >= 0) {
      AddEvidence(f, "cache_at_alloc_peak_bytes", m.reserved_at_peak_bytes - m.peak_allocated_bytes);
    }
    AddEvidence(f, "device", m.device);
    if (!m.peak_op.empty()) AddEvidence(f, "peak_op", m.peak_op);
    if (!m.peak_op.empty()) {
      Location loc;
      loc.rank = ctx.store.rank;
      loc.op = m.peak_op;
      f.where.push_back(loc);
    }
    out.push_back(std::move(f));
  }
}

}  // namespace fastenough::findings
