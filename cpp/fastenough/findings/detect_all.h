// The hooks that run every trace-based finding detector: DetectAll on one
// rank (the pipeline ranks what it returns by saving), DetectAcrossRanks on
// all ranks of a multi-rank input (straggler-rank, load-imbalance).
#pragma once

#include <vector>

#include "fastenough/analysis/call_tree.h"
#include "fastenough/analysis/collectives.h"
#include "fastenough/analysis/python_stack.h"
#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/findings/finding.h"
#include "fastenough/roofline/rank_roofline.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::findings {

// frames: whose each Python frame is and the call lines of the agent's
// callsites file (null: classified by path alone, def lines only).
std::vector<Finding> DetectAll(const trace::EventStore& store,
                               const analysis::RankAnalysis& analysis,
                               const analysis::SourceFrames* frames = nullptr);
// The same with the store's call tree already built (analysis::BuildCallTree
// of `store`, e.g. on another thread while the analyses ran), and the rank's
// roofline rows when computed (null: no roofline verdicts).
std::vector<Finding> DetectAll(const trace::EventStore& store,
                               const analysis::RankAnalysis& analysis,
                               const analysis::SourceFrames* frames, analysis::CallTree tree,
                               const roofline::RankRoofline* roofline = nullptr);

// Needs >= 2 ranks; empty otherwise. One entry per rank, in input order.
// `analyses`: the same ranks' analyses in the same order, or none; on a
// host-only job (HostOnlyJob) they decide whether a late rank's lateness is
// material per step (straggler_rank.cc).
std::vector<Finding> DetectAcrossRanks(const std::vector<const analysis::RankCollectives*>& ranks,
                                       const std::vector<const analysis::RankAnalysis*>& analyses = {});

// dataloader-bound on a host-only job of several ranks (`findings[i]`: rank
// i's own findings, in the order of `ranks`): a rank's stands only when its
// loader holds it in nearly every steady step longer than the other ranks'
// loaders hold them in a typical one, by 10% of a step (dataloader_bound.cc).
void KeepLoaderWaitsBeyondTheOtherRanks(const std::vector<const analysis::RankAnalysis*>& ranks,
                                        const std::vector<std::vector<Finding>*>& findings);

// No rank has device work (CPU ranks over gloo): the ranks share the host's
// cores, so their wall times are not their work (rank_turns.cc).
bool HostOnlyJob(const std::vector<const analysis::RankAnalysis*>& ranks);
// Some rank sends to or receives from another (gloo:send / gloo:recv ranges,
// NCCL SendRecv kernels): the point-to-point links that make ranks take turns.
bool PointToPoint(const std::vector<const analysis::RankCollectives*>& ranks);

// load-imbalance: the ranks' work per steady step (their step breakdowns),
// compared; needs >= 2 ranks with >= 3 steady steps each (load_imbalance.cc).
std::vector<Finding> DetectLoadImbalance(const std::vector<const analysis::RankAnalysis*>& ranks);

// The ranks' steady work compared over the time all of them were in a steady
// step (rank_turns.cc); not measured with fewer than two ranks at work.
analysis::DeviceTurns JobTurns(const std::vector<const analysis::RankAnalysis*>& ranks);
// devices-take-turns for the ranks of a job (a pipeline), from JobTurns.
// `host_only`: HostOnlyJob of the ranks; `point_to_point`: PointToPoint of
// their collectives. A host-only job without sends or receives gets no
// finding: all-reduces do not make ranks take turns (rank_turns.cc).
std::vector<Finding> DetectRankTurns(const analysis::DeviceTurns& turns, bool host_only = false,
                                     bool point_to_point = true);

}  // namespace fastenough::findings
