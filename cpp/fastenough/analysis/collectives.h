// The collective kernels of one rank (NCCL / RCCL / HCCL, as memcpy.h's
// CommunicationByName tells them): per kernel name, every call's start and
// duration in time order. A rank without any (a gloo job on the CPU) has its
// collectives on the host: ProcessGroupGloo records each one as a
// "gloo:<collective>" range ("gloo:all_reduce") on its worker thread, from
// when the work starts until every rank has taken part; those stand in. This is all the cross-rank detectors need of a
// rank's trace (findings/straggler_rank.cc matches the i-th call of a name
// across ranks), so a rank's store can be freed once it is taken
// (report/rank_summary.h).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct CollectiveCall {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  auto operator<=>(const CollectiveCall&) const = default;
};

struct RankCollectives {
  int rank = 0;  // the trace's rank (distributedInfo)
  // Kernel (or gloo range) name -> its calls sorted by (start, duration).
  std::map<std::string, std::vector<CollectiveCall>> by_name;
};

RankCollectives CollectCollectives(const trace::EventStore& store);

}  // namespace fastenough::analysis
