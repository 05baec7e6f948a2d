#include "fastenough/analysis/job_critical_path.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "fastenough/analysis/collective_matching.h"

namespace fastenough::analysis {

namespace {

struct Joined {
  const MatchedCollective* m = nullptr;
  size_t last = 0;     // the rank that arrived last
  int64_t arrival = 0;  // its start
  int64_t end = 0;      // its end
};

}  // namespace

JobCriticalPath AnalyzeJobCriticalPath(const std::vector<const RankCollectives*>& ranks) {
  JobCriticalPath p;
  p.ranks = static_cast<int64_t>(ranks.size());
  if (ranks.size() < 2) return p;
  for (const RankCollectives* r : ranks) p.per_rank.push_back({r->rank, 0, 0, 0});
  const std::vector<MatchedCollective> matched = MatchCollectives(ranks);
  if (matched.empty()) {
    p.status = "no-collectives";
    return p;
  }
  std::vector<Joined> order;
  order.reserve(matched.size());
  for (const MatchedCollective& m : matched) {
    Joined j;
    j.m = &m;
    j.arrival = m.call[0]->start_ns;
    for (size_t r = 1; r < ranks.size(); ++r) {
      // The later start; on a tie the lower input index (deterministic).
      if (m.call[r]->start_ns > j.arrival) {
        j.arrival = m.call[r]->start_ns;
        j.last = r;
      }
    }
    j.end = m.call[j.last]->start_ns + m.call[j.last]->dur_ns;
    for (size_t r = 0; r < ranks.size(); ++r) {
      if (r != j.last) p.per_rank[r].waited_ns += std::max<int64_t>(0, j.arrival - m.call[r]->start_ns);
    }
    order.push_back(j);
  }
  // In the order they end (then start, then name: deterministic).
  std::sort(order.begin(), order.end(), [](const Joined& a, const Joined& b) {
    return std::tie(a.end, a.arrival, a.m->name) < std::tie(b.end, b.arrival, b.m->name);
  });
  std::map<std::pair<std::string, int>, JobPathItem> items;
  int64_t prev_end = order.front().arrival;  // the path begins at the first last arrival
  p.window_start_ns = prev_end;
  for (const Joined& j : order) {
    const int64_t work = std::max<int64_t>(0, j.arrival - prev_end);
    const int64_t transfer = std::max<int64_t>(0, j.end - std::max(j.arrival, prev_end));
    p.work_ns += work;
    p.transfer_ns += transfer;
    JobPathRank& gate = p.per_rank[j.last];
    gate.gating_ns += work;
    gate.gating_collectives += 1;
    if (work > 0) {
      JobPathItem& it = items[{j.m->name, gate.rank}];
      it.collective = j.m->name;
      it.rank = gate.rank;
      it.ns += work;
      it.count += 1;
    }
    prev_end = std::max(prev_end, j.end);
  }
  p.window_end_ns = prev_end;
  p.length_ns = p.work_ns + p.transfer_ns;
  p.collectives = static_cast<int64_t>(order.size());
  for (auto& [key, it] : items) p.top.push_back(std::move(it));
  std::sort(p.top.begin(), p.top.end(), [](const JobPathItem& a, const JobPathItem& b) {
    return std::tie(b.ns, a.rank, a.collective) < std::tie(a.ns, b.rank, b.collective);
  });
  if (p.top.size() > kJobPathTop) p.top.resize(kJobPathTop);
  p.status = "ok";
  return p;
}

}  // namespace fastenough::analysis
