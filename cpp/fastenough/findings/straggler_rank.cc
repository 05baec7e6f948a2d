// straggler-rank (cross-rank): the i-th collective kernel of the same name
// (in a gloo job on the CPU, the i-th "gloo:" host range: collectives.h) is
// matched across ranks by order, after lining the ranks' sequences up
// (analysis/collective_matching.h); the rank that starts it last is the one
// the others wait for. A rank that is last in at least 75% of >= 4 matched
// collectives, by a mean margin over 5% of the collectives' mean duration on
// the others, is a straggler. Clocks: Kineto timestamps are wall-clock based
// on every rank; skew between hosts adds to the margin, so the verdict is
// insufficient evidence unless the margin is large (> 1 ms). It reads only the
// ranks' collectives (analysis/collectives.h), never their stores: the
// pipeline frees each store once its rank is summarised.
#include <cstdint>
#include <string>

#include "fastenough/analysis/collective_matching.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

std::vector<Finding> DetectAcrossRanks(const std::vector<const analysis::RankCollectives*>& ranks) {
  std::vector<Finding> out;
  if (ranks.size() < 2) return out;
  std::vector<int64_t> last_count(ranks.size()), margin(ranks.size());  // zeros
  int64_t matched = 0, dur_sum = 0;
  for (const analysis::MatchedCollective& m : analysis::MatchCollectives(ranks)) {
    size_t last = 0;
    int64_t last_ts = INT64_MIN, second = INT64_MIN;
    for (size_t r = 0; r < ranks.size(); ++r) {
      const int64_t ts = m.call[r]->start_ns;
      if (ts > last_ts) {
        second = last_ts;
        last_ts = ts;
        last = r;
      } else if (ts > second) {
        second = ts;
      }
      dur_sum += m.call[r]->dur_ns;
    }
    ++matched;
    last_count[last] += 1;
    margin[last] += last_ts - second;
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
