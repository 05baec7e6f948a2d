#include "fastenough/rundir/step_summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "fastenough/stats/quantile.h"

namespace fastenough::rundir {

std::vector<StepSummary> SummarizeSteps(const std::vector<StepRecord>& steps) {
  using Key = std::pair<int, std::string>;
  std::map<Key, std::vector<const StepRecord*>> steady;
  std::map<Key, int64_t> all;
  for (const StepRecord& s : steps) {
    Key k{s.rank, s.mode};
    ++all[k];
    if (s.phase == "steady") steady[k].push_back(&s);
  }
  std::vector<StepSummary> out;
  for (const auto& [key, n] : all) {
    StepSummary sum;
    sum.rank = key.first;
    sum.mode = key.second;
    sum.all_steps = n;
    auto it = steady.find(key);
    if (it != steady.end()) {
      auto st = it->second;
      std::stable_sort(st.begin(), st.end(), [](const StepRecord* a, const StepRecord* b) {
        return a->start_mono_ns < b->start_mono_ns;
      });
      std::vector<int64_t> durations;
      int64_t first = st.front()->start_mono_ns, last = st.front()->end_mono_ns;
      int64_t items = 0, tokens = 0, busy = 0;
      bool all_items = true, all_tokens = true;
      for (const StepRecord* s : st) {
        const int64_t d = s->end_mono_ns - s->start_mono_ns;
        durations.push_back(d);
        busy += std::max<int64_t>(0, d);
        first = std::min(first, s->start_mono_ns);
        last = std::max(last, s->end_mono_ns);
        if (s->items) items += *s->items; else all_items = false;
        if (s->tokens) tokens += *s->tokens; else all_tokens = false;
      }
      sum.count = static_cast<int64_t>(st.size());
      sum.median_ns = stats::QuantileNs(durations, 0.5);
      sum.p10_ns = stats::QuantileNs(durations, 0.1);
      sum.p90_ns = stats::QuantileNs(durations, 0.9);
      sum.span_ns = last - first;
      sum.steady_ns = busy;
      sum.source = st.front()->source;
      sum.trend = AssessTrend(durations);
      if (busy > 0) {
        double busy_s = static_cast<double>(busy) * 1e-9;
        sum.steps_per_s = static_cast<double>(sum.count) / busy_s;
        // Items/s only when every steady step says how many it had: a partial
        // count would understate the rate.
        if (all_items) sum.items_per_s = static_cast<double>(items) / busy_s;
        if (all_tokens) sum.tokens_per_s = static_cast<double>(tokens) / busy_s;
      }
    }
    out.push_back(sum);
  }
  return out;
}

std::string HeadlineMode(const std::vector<StepSummary>& summaries) {
  std::map<std::string, int64_t> time;
  for (const StepSummary& s : summaries) {
    if (s.count > 0) time[s.mode] += s.steady_ns;
  }
  std::string best;
  int64_t best_ns = -1;
  for (const auto& [mode, ns] : time) {
    if (ns > best_ns) best = mode, best_ns = ns;
  }
  return best;
}

}  // namespace fastenough::rundir
