// What every trace detector of one rank shares, computed once: the host call
// tree, the steady step windows (or one window over the whole trace when it
// has no ProfilerStep#N), the compute-kernel union and the synchronisations
// (several detectors need to know which copies a sync already explains).
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "fastenough/analysis/call_tree.h"
#include "fastenough/analysis/memcpy.h"
#include "fastenough/analysis/python_stack.h"
#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/analysis/syncs.h"
#include "fastenough/findings/finding.h"
#include "fastenough/roofline/rank_roofline.h"
#include "fastenough/timeline/interval_set.h"
#include "fastenough/timeline/step_windows.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::findings {

struct DetectContext {
  const trace::EventStore& store;
  const analysis::RankAnalysis& analysis;
  // Whose each Python frame is and the call lines (may be null: a bare trace).
  const analysis::SourceFrames* frames = nullptr;
  analysis::CallTree tree;
  bool has_steps = false;
  std::vector<timeline::StepWindow> steady;  // time order
  timeline::IntervalSet steady_set;          // union of the steady windows
  int64_t steady_ns = 0;                     // |steady_set|
  double median_step_ns = 0;
  timeline::IntervalSet compute;             // union of compute kernels
  std::vector<analysis::SyncEvent> syncs;    // every sync of the trace
  std::unordered_set<int32_t> sync_cause_ops;
  int max_compute_major = 0;                 // from deviceProperties; 0 unknown
  // The rank's roofline rows (roofline/rank_roofline.h), when the pipeline
  // computed them; null: the roofline verdicts (roofline_verdicts.cc) are off.
  const roofline::RankRoofline* roofline = nullptr;

  DetectContext(const trace::EventStore& s, const analysis::RankAnalysis& a,
                const analysis::SourceFrames* source_frames = nullptr);
  // With the store's call tree already built (BuildCallTree(s), e.g. on
  // another thread while the analyses ran).
  DetectContext(const trace::EventStore& s, const analysis::RankAnalysis& a,
                const analysis::SourceFrames* source_frames, analysis::CallTree call_tree);
  // Index into `steady` of the window holding t, -1 when outside.
  int StepOf(int64_t t) const;
  bool InSteady(int64_t t) const { return StepOf(t) >= 0; }
  double steps() const { return static_cast<double>(steady.size()); }
  // Fills per_step_ns / share_of_step / total_ns from a total over the steady steps.
  void SetSaving(Finding& f, int64_t total_ns) const;
  // True when `row` has an ancestor among the sync-causing ops.
  bool UnderSyncCause(int32_t row) const;
};

}  // namespace fastenough::findings
