// The same collective across the ranks of a job: the i-th call of a name on
// one rank is the i-th on every other, once the ranks' sequences are lined up
// (`fastenough run` starts each rank's profiler window once that rank's
// warm-up has settled, so the windows may begin some calls apart). Read by
// straggler-rank (findings/straggler_rank.cc) and the job's critical path
// (job_critical_path.h); reads the ranks' collectives only, never their
// stores.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/analysis/collectives.h"

namespace fastenough::analysis {

// One collective every rank took part in: call `call[r]` of `name` on rank r
// (r: the input order of the ranks).
struct MatchedCollective {
  std::string name;
  std::vector<const CollectiveCall*> call;
};

// Names in sorted order, each name's calls in order. A name is matched only
// when every rank has a lining-up of its calls with rank 0's: the shift whose
// matched ends lie closest (a collective ends at about the same moment on
// every rank, however late each started), the smaller shift on a tie,
// accepted only when the ends lie within a quarter of rank 0's median spacing
// between calls. Where the windows begin apart, the first shared call is left
// out: the rank whose window began later carried its profiler's start into
// that step, which the others waited out there. Empty with fewer than 2 ranks.
std::vector<MatchedCollective> MatchCollectives(const std::vector<const RankCollectives*>& ranks);

}  // namespace fastenough::analysis
