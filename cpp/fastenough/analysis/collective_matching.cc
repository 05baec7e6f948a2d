#include "fastenough/analysis/collective_matching.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include "fastenough/stats/quantile.h"

namespace fastenough::analysis {

namespace {

int64_t EndOf(const CollectiveCall& c) { return c.start_ns + c.dur_ns; }

// Rank r's call i - shift is rank 0's call i. A collective ends at about the
// same moment on every rank (when the last one has joined), however late each
// started; the shift is the one whose matched ends lie closest (mean absolute
// difference), the smaller shift on a tie, so traces of the same steps keep
// shift 0. Accepted only when its ends lie within a quarter of rank 0's median
// spacing between calls: windows that share no call match nothing. nullopt:
// no shift fits. Where the windows begin apart, the first shared call is not
// counted (MatchCollectives).
std::optional<int64_t> Alignment(const std::vector<CollectiveCall>& a,
                                 const std::vector<CollectiveCall>& b) {
  const int64_t na = static_cast<int64_t>(a.size()), nb = static_cast<int64_t>(b.size());
  if (na < 2 || nb < 2) return 0;  // nothing to line up by: by order, as recorded
  std::vector<int64_t> gaps;
  for (int64_t i = 1; i < na; ++i) gaps.push_back(EndOf(a[i]) - EndOf(a[i - 1]));
  const double spacing = stats::Median(std::move(gaps));
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

std::vector<MatchedCollective> MatchCollectives(const std::vector<const RankCollectives*>& ranks) {
  std::vector<MatchedCollective> out;
  if (ranks.size() < 2) return out;
  const auto& names0 = ranks[0]->by_name;
  for (const auto& [name, v0] : names0) {
    // Rank 0's calls [lo, hi) have a match on every rank: call k - shift[r] of rank r.
    int64_t lo = 0, hi = static_cast<int64_t>(v0.size());
    std::vector<int64_t> shift(ranks.size(), 0);
    std::vector<const std::vector<CollectiveCall>*> calls(ranks.size(), &v0);
    bool everywhere = true;
    for (size_t r = 1; r < ranks.size() && everywhere; ++r) {
      auto it = ranks[r]->by_name.find(name);
      std::optional<int64_t> s;
      if (it != ranks[r]->by_name.end()) s = Alignment(v0, it->second);
      if (!s) {
        everywhere = false;
        break;
      }
      calls[r] = &it->second;
      shift[r] = *s;
      lo = std::max(lo, *s);
      hi = std::min(hi, static_cast<int64_t>(it->second.size()) + *s);
    }
    if (!everywhere) continue;
    bool starts_late = false, earlier = false;
    for (size_t r = 0; r < ranks.size() && lo < hi; ++r) {
      starts_late = starts_late || lo - shift[r] == 0;
      earlier = earlier || lo - shift[r] > 0;
    }
    if (starts_late && earlier) ++lo;
    for (int64_t k = lo; k < hi; ++k) {
      MatchedCollective m;
      m.name = name;
      for (size_t r = 0; r < ranks.size(); ++r) m.call.push_back(&(*calls[r])[k - shift[r]]);
      out.push_back(std::move(m));
    }
  }
  return out;
}

}  // namespace fastenough::analysis
