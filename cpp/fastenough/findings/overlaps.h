// Findings whose savings count the same time, and what the avoidable
// findings of a rank save together (docs/report-schema.md, Invariants):
// savings are upper bounds each; two that claim the same stretch of the step
// (small-kernels and gpu-idle-host-bound both counting a decode step's device
// idle; serial-small-gemm and unfused-projections both counting BERT's q/k/v
// projections) are marked as overlapping and never added up, so the report's
// avoidable total is at most the step.
//
// Trace findings claim time on the trace's clock (Finding::claimed): two
// overlap when at least a tenth of the smaller claim is shared. Findings of
// the agent and the sampler have no clock of their own: they overlap with any
// finding that claims the same part of the step (claim classes below).
#pragma once

#include <string_view>
#include <vector>

#include "fastenough/findings/finding.h"
#include "fastenough/timeline/interval_set.h"

namespace fastenough::findings {

// Share of the smaller claim two trace findings must share to overlap.
constexpr double kOverlapShare = 0.10;

// What part of a step a finding's saving comes from: "forward" (the model's
// own compute: autograd, padding, logits, caches, serial GEMMs), "host-sync",
// "data", "transfer", "device-idle", "comm", "whole-step" (every part), or
// "" (no saving in time: memory findings, step-bound).
std::string_view ClaimClass(std::string_view code);

// Trace findings of one rank: a finding with a saving but no claim of its own
// claims `steady` (all of it); then overlaps by shared time.
void MarkTraceOverlaps(std::vector<Finding>& findings, const timeline::IntervalSet& steady);

// Every finding with a saving whose claim class meets another's (the same
// class, "forward" with "device-idle", anything with "whole-step"), except
// two trace findings, which MarkTraceOverlaps has decided by their time.
void MarkClassOverlaps(std::vector<Finding>& findings);

// Job-level findings (load-imbalance) with the findings of the rank they are
// counted with that claim the same waiting in collectives.
void MarkJobOverlaps(std::vector<Finding>& findings);

struct AvoidableTotal {
  int rank = -1;
  double share_of_step = 0;  // sum over groups of overlapping findings of the largest share
  int64_t per_step_ns = 0;   // likewise, of per_step_ns where known
  int findings = 0;          // avoidable findings with a saving
  int groups = 0;            // of which groups of overlapping findings
};

// The avoidable findings of each rank together: overlapping ones count once
// (their largest saving). When the groups of a rank would still add up to
// more than a whole step, their savings cannot all be true at once: every
// avoidable finding of that rank is then marked as overlapping with the
// others and the total is the largest one. Ranks in ascending order.
std::vector<AvoidableTotal> BoundAvoidable(std::vector<Finding>& findings);

}  // namespace fastenough::findings
