// straggler-rank (cross-rank): the i-th collective kernel of the same name is
// matched across ranks by order; the rank that starts it last is the one the
// others wait for. A rank that is last in at least 75% of >= 4 matched
// collectives, by a mean margin over 5% of the collectives' mean duration on
// the others, is a straggler. Clocks: Kineto timestamps are wall-clock based
// on every rank; skew between hosts adds to the margin, so the verdict is
// insufficient evidence unless the margin is large (> 1 ms). It reads only the
// ranks' collectives (analysis/collectives.h), never their stores: the
// pipeline frees each store once its rank is summarised.
#include <algorithm>
#include <map>
#include <string>

#include "fastenough/analysis/collectives.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

std::vector<Finding> DetectAcrossRanks(const std::vector<const analysis::RankCollectives*>& ranks) {
  std::vector<Finding> out;
  if (ranks.size() < 2) return out;
  // Per rank: collective name -> (start, duration) of its calls in order.
  std::vector<const std::map<std::string, std::vector<analysis::CollectiveCall>>*> starts;
  for (const analysis::RankCollectives* r : ranks) starts.push_back(&r->by_name);
  std::vector<int64_t> last_count(ranks.size()), margin(ranks.size());  // zeros
  int64_t matched = 0, dur_sum = 0;
  for (const auto& [name, v0] : *starts[0]) {
    size_t m = v0.size();
    bool everywhere = true;
    for (size_t r = 1; r < ranks.size(); ++r) {
      auto it = starts[r]->find(name);
      if (it == starts[r]->end()) {
        everywhere = false;
        break;
      }
      m = std::min(m, it->second.size());
    }
    if (!everywhere) continue;
    for (size_t k = 0; k < m; ++k) {
      size_t last = 0;
      int64_t last_ts = INT64_MIN, second = INT64_MIN;
      for (size_t r = 0; r < ranks.size(); ++r) {
        const analysis::CollectiveCall& call = starts[r]->at(name)[k];
        const int64_t ts = call.start_ns;
        if (ts > last_ts) {
          second = last_ts;
          last_ts = ts;
          last = r;
        } else if (ts > second) {
          second = ts;
        }
        dur_sum += call.dur_ns;
      }
      ++matched;
      last_count[last] += 1;
      margin[last] += last_ts - second;
    }
  }
  if (matched < 4) return out;
  const double mean_dur = static_cast<double>(dur_sum) / (matched * ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (last_count[r] * 4 < matched * 3) continue;
    const double mean_margin = static_cast<double>(margin[r]) / last_count[r];
    if (mean_margin < 0.05 * mean_dur) continue;
    Finding f = NewFinding("straggler-rank",
                           mean_margin > 1e6 ? Verdict::kAvoidable : Verdict::kInsufficientEvidence,
                           -1);
    AddEvidence(f, "rank", static_cast<int64_t>(ranks[r]->rank));
    AddEvidence(f, "ranks", static_cast<int64_t>(ranks.size()));
    AddEvidence(f, "matched_collectives", matched);
    AddEvidence(f, "last_arrivals", last_count[r]);
    AddEvidence(f, "mean_late_ns", static_cast<int64_t>(mean_margin));
    if (mean_margin <= 1e6) {
      AddEvidence(f, "missing", std::string("clock offset between hosts (margins under 1 ms may be skew)"));
    }
    Location loc;
    loc.rank = ranks[r]->rank;
    f.where.push_back(loc);
    // Every other rank waits ~margin per collective: that is the bound.
    f.saving.total_ns = margin[r];
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fastenough::findings
