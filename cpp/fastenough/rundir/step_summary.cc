#include "fastenough/rundir/step_summary.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace fastenough::rundir {

int64_t Quantile(std::vector<int64_t> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double pos = q * static_cast<double>(values.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, values.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return static_cast<int64_t>(std::llround(values[lo] + frac * (values[hi] - values[lo])));
}

std::vector<StepSummary> SummarizeSteps(const std::vector<StepRecord>& steps) {
  std::map<int, std::vector<const StepRecord*>> by_rank;
  std::map<int, int64_t> all;
  for (const StepRecord& s : steps) {
    ++all[s.rank];
    if (s.phase == "steady") by_rank[s.rank].push_back(&s);
  }
  std::vector<StepSummary> out;
  for (const auto& [rank, n] : all) {
    StepSummary sum;
    sum.rank = rank;
    sum.all_steps = n;
    auto it = by_rank.find(rank);
    if (it != by_rank.end()) {
      const auto& st = it->second;
      std::vector<int64_t> durations;
      int64_t first = st.front()->start_mono_ns, last = st.front()->end_mono_ns;
      int64_t items = 0, tokens = 0;
      bool all_items = true, all_tokens = true;
      for (const StepRecord* s : st) {
        durations.push_back(s->end_mono_ns - s->start_mono_ns);
        first = std::min(first, s->start_mono_ns);
        last = std::max(last, s->end_mono_ns);
        if (s->items) items += *s->items; else all_items = false;
        if (s->tokens) tokens += *s->tokens; else all_tokens = false;
      }
      sum.count = static_cast<int64_t>(st.size());
      sum.median_ns = Quantile(durations, 0.5);
      sum.p10_ns = Quantile(durations, 0.1);
      sum.p90_ns = Quantile(durations, 0.9);
      sum.span_ns = last - first;
      sum.source = st.front()->source;
      if (sum.span_ns > 0) {
        double span_s = static_cast<double>(sum.span_ns) * 1e-9;
        sum.steps_per_s = static_cast<double>(sum.count) / span_s;
        // Items/s only when every steady step says how many it had: a partial
        // count would understate the rate.
        if (all_items) sum.items_per_s = static_cast<double>(items) / span_s;
        if (all_tokens) sum.tokens_per_s = static_cast<double>(tokens) / span_s;
      }
    }
    out.push_back(sum);
  }
  return out;
}

}  // namespace fastenough::rundir
