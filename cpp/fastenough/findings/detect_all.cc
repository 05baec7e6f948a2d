#include "fastenough/findings/detect_all.h"

#include <utility>

#include "fastenough/findings/detect_context.h"
#include "fastenough/findings/detectors.h"
#include "fastenough/findings/overlaps.h"

namespace fastenough::findings {

namespace {

std::vector<Finding> DetectIn(const DetectContext& ctx) {
  std::vector<Finding> out;
  if (ctx.steady.empty()) return out;
  timeline::IntervalSet explained;
  // Detectors that explain device idle run before gpu-idle-host-bound, which
  // reports only the idle nobody else explains.
  DetectSyncInLoop(ctx, out, explained);
  DetectGemmPatterns(ctx, out, explained);
  DetectPageableMemcpy(ctx, out, explained);
  DetectDataloaderBound(ctx, out, explained);
  DetectTransferInLoop(ctx, out);
  DetectCpuFallback(ctx, out);
  DetectNoTensorCores(ctx, out);
  // Graph replays recorded without their kernels make the device look idle:
  // the idle-based findings would report that false idle time.
  const bool false_idle = ctx.analysis.graphs.kernels_missing();
  if (!false_idle) DetectSmallKernels(ctx, out);
  DetectCommNotOverlapped(ctx, out);
  DetectDevicesTakeTurns(ctx, out);
  if (!false_idle) DetectGpuIdleHostBound(ctx, explained, out);
  DetectLowOccupancy(ctx, out);
  DetectMemoryNearLimit(ctx, out);
  // The roofline verdicts (issue 38 item 3).
  DetectOpsNearRoof(ctx, out);
  DetectBelowRoof(ctx, out);
  // Savings that count the same time are marked as overlapping (never added up).
  MarkTraceOverlaps(out, ctx.steady_set);
  // Every finding can be found in an annotated trace: one without places of
  // its own spans the steady steps it was measured on.
  for (Finding& f : out) {
    if (f.marks.empty()) {
      AddMark(ctx, f, "the steady steps this finding was measured on", ctx.steady.front().start_ns,
              ctx.steady.back().end_ns);
    }
  }
  AddDepthEvidence(ctx, explained, out);
  return out;
}

}  // namespace

std::vector<Finding> DetectAll(const trace::EventStore& store,
                               const analysis::RankAnalysis& analysis,
                               const analysis::SourceFrames* frames) {
  if (store.size() == 0) return {};
  return DetectIn(DetectContext(store, analysis, frames));
}

std::vector<Finding> DetectAll(const trace::EventStore& store,
                               const analysis::RankAnalysis& analysis,
                               const analysis::SourceFrames* frames, analysis::CallTree tree,
                               const roofline::RankRoofline* roofline) {
  if (store.size() == 0) return {};
  DetectContext ctx(store, analysis, frames, std::move(tree));
  ctx.roofline = roofline;
  return DetectIn(ctx);
}

}  // namespace fastenough::findings
