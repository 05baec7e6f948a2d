// straggler-rank (cross-rank): the i-th collective kernel of the same name is
// matched across ranks by order; the rank that starts it last is the one the
// others wait for. A rank that is last in at least 75% of >= 4 matched
// collectives, by a mean margin over 5% of the collectives' mean duration on
// the others, is a straggler. Clocks: Kineto timestamps are wall-clock based
// on every rank; skew between hosts adds to the margin, so the verdict is
// insufficient evidence unless the margin is large (> 1 ms).
#include <algorithm>
#include <map>
#include <string>

#include "fastenough/analysis/device_breakdown.h"
#include "fastenough/analysis/memcpy.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

std::vector<Finding> DetectAcrossRanks(const std::vector<const trace::EventStore*>& stores,
                                       const std::vector<const analysis::RankAnalysis*>& analyses) {
  (void)analyses;
  std::vector<Finding> out;
  if (stores.size() < 2) return out;
  // Per rank: collective name -> start times in order.
  std::vector<std::map<std::string, std::vector<std::pair<int64_t, int64_t>>>> starts(stores.size());
  for (size_t r = 0; r < stores.size(); ++r) {
    const auto& st = *stores[r];
    const std::vector<int8_t> is_comm = analysis::CommunicationByName(st);
    for (size_t i = 0; i < st.size(); ++i) {
      if (st.kind[i] != trace::EventKind::kKernel || is_comm[st.name[i]] != 1) continue;
      starts[r][std::string(st.name_of(i))].push_back({st.ts_ns[i], st.dur_ns[i]});
    }
    for (auto& [n, v] : starts[r]) std::sort(v.begin(), v.end());
  }
  std::vector<int64_t> last_count(stores.size(), 0), margin(stores.size(), 0);
  int64_t matched = 0, dur_sum = 0;
  for (const auto& [name, v0] : starts[0]) {
    size_t m = v0.size();
    bool everywhere = true;
    for (size_t r = 1; r < stores.size(); ++r) {
      auto it = starts[r].find(name);
      if (it == starts[r].end()) {
        everywhere = false;
        break;
      }
      m = std::min(m, it->second.size());
    }
    if (!everywhere) continue;
    for (size_t k = 0; k < m; ++k) {
      size_t last = 0;
      int64_t last_ts = INT64_MIN, second = INT64_MIN;
      for (size_t r = 0; r < stores.size(); ++r) {
        const int64_t ts = starts[r].at(name)[k].first;
        if (ts > last_ts) {
          second = last_ts;
          last_ts = ts;
          last = r;
        } else if (ts > second) {
          second = ts;
        }
        dur_sum += starts[r].at(name)[k].second;
      }
      ++matched;
      last_count[last] += 1;
      margin[last] += last_ts - second;
    }
  }
  if (matched < 4) return out;
  const double mean_dur = static_cast<double>(dur_sum) / (matched * stores.size());
  for (size_t r = 0; r < stores.size(); ++r) {
    if (last_count[r] * 4 < matched * 3) continue;
    const double mean_margin = static_cast<double>(margin[r]) / last_count[r];
    if (mean_margin < 0.05 * mean_dur) continue;
    Finding f = NewFinding("straggler-rank",
                           mean_margin > 1e6 ? Verdict::kAvoidable : Verdict::kInsufficientEvidence,
                           -1);
    AddEvidence(f, "rank", static_cast<int64_t>(stores[r]->rank));
    AddEvidence(f, "ranks", static_cast<int64_t>(stores.size()));
    AddEvidence(f, "matched_collectives", matched);
    AddEvidence(f, "last_arrivals", last_count[r]);
    AddEvidence(f, "mean_late_ns", static_cast<int64_t>(mean_margin));
    if (mean_margin <= 1e6) {
      AddEvidence(f, "missing", std::string("clock offset between hosts (margins under 1 ms may be skew)"));
    }
    Location loc;
    loc.rank = stores[r]->rank;
    f.where.push_back(loc);
    // Every other rank waits ~margin per collective: that is the bound.
    f.saving.total_ns = margin[r];
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fastenough::findings
