// straggler-rank (cross-rank): the i-th collective kernel of the same name
// (in a gloo job on the CPU, the i-th "gloo:" host range: collectives.h) is
// matched across ranks by order, after lining the ranks' sequences up (see
// Alignment below: `fastenough run` starts each rank's profiler window once
// that rank's warm-up has settled, so the windows may begin some steps apart); the rank that starts it last is the one the
// others wait for. A rank that is last in at least 75% of >= 4 matched
// collectives, by a mean margin over 5% of the collectives' mean duration on
// the others, is a straggler. Clocks: Kineto timestamps are wall-clock based
// on every rank; skew between hosts adds to the margin, so the verdict is
// insufficient evidence unless the margin is large (> 1 ms). It reads only the
// ranks' collectives (analysis/collectives.h), never their stores: the
// pipeline frees each store once its rank is summarised.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "fastenough/analysis/collectives.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

namespace {

int64_t EndOf(const analysis::CollectiveCall& c) { return c.start_ns + c.dur_ns; }

// Rank r's call i - shift is rank 0's call i. A collective ends at about the
// same moment on every rank (when the last one has joined), however late each
// started; the shift is the one whose matched ends lie closest (mean absolute
// difference), the smaller shift on a tie, so traces of the same steps keep
// shift 0. Accepted only when its ends lie within a quarter of rank 0's median
// spacing between calls: windows that share no call match nothing. nullopt:
// no shift fits. Where the windows begin apart, the first shared call is not
// counted (see DetectAcrossRanks).
std::optional<int64_t> Alignment(const std::vector<analysis::CollectiveCall>& a,
                                 const std::vector<analysis::CollectiveCall>& b) {
  const int64_t na = static_cast<int64_t>(a.size()), nb = static_cast<int64_t>(b.size());
  if (na < 2 || nb < 2) return 0;  // nothing to line up by: by order, as recorded
  std::vector<int64_t> gaps;
  for (int64_t i = 1; i < na; ++i) gaps.push_back(EndOf(a[i]) - EndOf(a[i - 1]));
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  const double spacing = static_cast<double>(gaps[gaps.size() / 2]);
  std::optional<int64_t> best;
  double best_cost = 0;
  for (int64_t shift = -(nb - 1); shift <= na - 1; ++shift) {
    const int64_t lo = std::max<int64_t>(0, shift), hi = std::min(na, nb + shift);
    double cost = 0;
    for (int64_t i = lo; i < hi; ++i) {
      cost += static_cast<double>(std::llabs(EndOf(a[i]) - EndOf(b[i - shift])));
    }
    cost /= static_cast<double>(hi - lo);
    const bool better = !best || cost < best_cost ||
                        (cost == best_cost && std::llabs(shift) < std::llabs(*best));
    if (better) {
      best = shift;
      best_cost = cost;
    }
  }
  if (best && *best != 0 && best_cost > 0.25 * spacing) return std::nullopt;
  return best;
}

}  // namespace

std::vector<Finding> DetectAcrossRanks(const std::vector<const analysis::RankCollectives*>& ranks) {
  std::vector<Finding> out;
  if (ranks.size() < 2) return out;
  // Per rank: collective name -> (start, duration) of its calls in order.
  std::vector<const std::map<std::string, std::vector<analysis::CollectiveCall>>*> starts;
  for (const analysis::RankCollectives* r : ranks) starts.push_back(&r->by_name);
  std::vector<int64_t> last_count(ranks.size()), margin(ranks.size());  // zeros
  int64_t matched = 0, dur_sum = 0;
  for (const auto& [name, v0] : *starts[0]) {
    // Rank 0's calls [lo, hi) have a match on every rank: call k - shift[r] of rank r.
    int64_t lo = 0, hi = static_cast<int64_t>(v0.size());
    std::vector<int64_t> shift(ranks.size(), 0);
    bool everywhere = true;
    for (size_t r = 1; r < ranks.size() && everywhere; ++r) {
      auto it = starts[r]->find(name);
      std::optional<int64_t> s;
      if (it != starts[r]->end()) s = Alignment(v0, it->second);
      if (!s) {
        everywhere = false;
        break;
      }
      shift[r] = *s;
      lo = std::max(lo, *s);
      hi = std::min(hi, static_cast<int64_t>(it->second.size()) + *s);
    }
    if (!everywhere) continue;
    // A window that begins after the others' did: its rank's first traced
    // step carried the profiler's start (tens of ms and more), which the
    // others waited out in that collective; not the rank's own lateness.
    bool starts_late = false, earlier = false;
    for (size_t r = 0; r < ranks.size() && lo < hi; ++r) {
      starts_late = starts_late || lo - shift[r] == 0;
      earlier = earlier || lo - shift[r] > 0;
    }
    if (starts_late && earlier) ++lo;
    for (int64_t k = lo; k < hi; ++k) {
      size_t last = 0;
      int64_t last_ts = INT64_MIN, second = INT64_MIN;
      for (size_t r = 0; r < ranks.size(); ++r) {
        const analysis::CollectiveCall& call = starts[r]->at(name)[k - shift[r]];
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
