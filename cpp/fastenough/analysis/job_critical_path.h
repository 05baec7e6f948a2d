// The critical path of a job across its ranks, where collectives link them
// (TraceLens #306; Holistic Trace Analysis's path stops at one rank): a
// collective cannot finish before its last rank has joined, so between two
// collectives the job waits for the rank that arrives last at the second one.
// Over the collectives matched on every rank (collective_matching.h), in the
// order they end, the path is
//   work      the last-arriving rank's time from the previous collective's
//             end to its own start of this one (its compute, its host, its
//             data: its own critical_path.per_rank entry says which)
//   transfer  the collective from the last arrival to its end (measured on
//             that rank, whose call did not wait), less what overlaps the
//             previous collective (collectives on several streams)
// Each rank is charged the work stretches it gated; the others' time in the
// collective before the last arrival is their wait. Clocks: Kineto
// timestamps are wall-clock based on every rank; skew between hosts shifts
// who looks last by the skew (straggler-rank has the same caveat), so
// stretches shorter than that skew are not telling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/analysis/collectives.h"

namespace fastenough::analysis {

struct JobPathRank {
  int rank = 0;
  int64_t gating_ns = 0;           // Σ work stretches where it arrived last
  int64_t gating_collectives = 0;  // collectives it arrived last at
  int64_t waited_ns = 0;           // Σ its time in collectives before the last arrival
};

// The work before one collective on one rank that gated it, summed.
struct JobPathItem {
  std::string collective;
  int rank = 0;
  int64_t ns = 0;
  int64_t count = 0;
};

struct JobCriticalPath {
  // "ok"; "one-rank" (fewer than 2 ranks); "no-collectives" (no collective
  // was matched on every rank).
  std::string status = "one-rank";
  int64_t ranks = 0;
  int64_t collectives = 0;  // matched on every rank, all on the path
  int64_t window_start_ns = 0;  // the first collective's last arrival
  int64_t window_end_ns = 0;    // the last collective's end
  int64_t length_ns = 0;        // work_ns + transfer_ns
  int64_t work_ns = 0;
  int64_t transfer_ns = 0;
  std::vector<JobPathRank> per_rank;  // input order
  std::vector<JobPathItem> top;       // up to kJobPathTop, heaviest first
};

constexpr size_t kJobPathTop = 10;

JobCriticalPath AnalyzeJobCriticalPath(const std::vector<const RankCollectives*>& ranks);

}  // namespace fastenough::analysis
