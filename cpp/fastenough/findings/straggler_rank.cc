// straggler-rank (cross-rank): the i-th collective kernel of the same name
// (in a gloo job on the CPU, the i-th "gloo:" host range: collectives.h) is
// matched across ranks by order, after lining the ranks' sequences up
// (analysis/collective_matching.h); the rank that starts it last is the one
// the others wait for. A rank that is last in at least 75% of >= 4 matched
// collectives, by a mean margin over 5% of the collectives' mean duration on
// the others, is a straggler. Clocks: Kineto timestamps are wall-clock based
// on every rank; skew between hosts adds to the margin, so the verdict is
// insufficient evidence unless the margin is large (> 1 ms). It reads only the
// ranks' collectives (analysis/collectives.h) and step breakdowns, never their
// stores: the pipeline frees each store once its rank is summarised.
//
// On a host-only job (no rank has device work: CPU ranks over gloo) ranks
// share cores, and a rank the scheduler leaves waiting arrives late without
// having more to do: the DDP tutorial's two equal ranks beside three busy
// loops (load 8) had one rank last at 9 to 12 of 12 all-reduces in 3 of 6
// runs, by 2.4 to 6.6 ms at 3 of 4 of them, in 8 to 20 ms steps; a scheduler
// that keeps one rank waiting for a whole window makes it late in every step.
// There, as load-imbalance does, a late rank is named only for what the
// scheduler cannot make:
//   - the lateness that holds at 3 of 4 matched collectives (its lower
//     quartile, over all of them) times the rank's collectives per step, the
//     per-step saving, is at least 10% of the ranks' median steady step; and
//   - the rank runs more work items per step than the others' typical step
//     (margin 1% or 2 items), or its lightest steady step holds a wait outside
//     any op and collective (idle time, data loading: a sleep, a read) longer
//     than the others' lightest by 25% of the median steady step (equal ranks
//     differed by at most 1.1 ms there; a rank that sleeps 100 ms before each
//     step, by about 100).
#include <algorithm>
#include <cstdint>
#include <string>

#include "fastenough/analysis/collective_matching.h"
#include "fastenough/analysis/step_breakdown.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/findings/detectors.h"
#include "fastenough/stats/quantile.h"

namespace fastenough::findings {

namespace {

// The median steady step of the ranks (the median of theirs); 0 when unknown.
double MedianStep(const std::vector<const analysis::RankAnalysis*>& analyses) {
  std::vector<double> medians;
  for (const analysis::RankAnalysis* ra : analyses) {
    const analysis::StepBreakdown& sb = ra->step_breakdown;
    if (sb.whole_trace) return 0;
    std::vector<int64_t> d;
    for (size_t i = sb.steady_begin; i < sb.steps.size(); ++i) {
      d.push_back(sb.steps[i].end_ns - sb.steps[i].start_ns);
    }
    if (d.empty()) return 0;
    medians.push_back(stats::Median(std::move(d)));
  }
  return medians.empty() ? 0 : stats::Median(std::move(medians));
}

// A rank's lightest steady step (the window's last one left out, as
// load-imbalance does): its wait outside ops and collectives, and its median
// work items per steady step.
struct Lightest {
  double wait = 0;
  double items = 0;
};

Lightest LightestOf(const analysis::StepBreakdown& sb) {
  Lightest l;
  std::vector<double> waits, items;
  for (size_t i = sb.steady_begin; i + 1 < sb.steps.size(); ++i) {
    const auto& row = sb.steps[i];
    waits.push_back(static_cast<double>(
        row.ns[static_cast<size_t>(analysis::StepCategory::kOther)] +
        row.ns[static_cast<size_t>(analysis::StepCategory::kDataLoader)]));
    items.push_back(static_cast<double>(row.work_items));
  }
  if (waits.empty()) return l;
  l.wait = *std::min_element(waits.begin(), waits.end());
  l.items = stats::Median(std::move(items));
  return l;
}

// Whether a late rank's lateness is its own (see the top): more work items
// or a longer wait outside ops than the other ranks' lightest steps.
bool OwnLateness(const std::vector<const analysis::RankAnalysis*>& analyses, size_t r,
                 double step) {
  const Lightest late = LightestOf(analyses[r]->step_breakdown);
  std::vector<double> waits, items;
  for (size_t o = 0; o < analyses.size(); ++o) {
    if (o == r) continue;
    const Lightest other = LightestOf(analyses[o]->step_breakdown);
    waits.push_back(other.wait);
    items.push_back(other.items);
  }
  const double others_items = stats::Median(std::move(items));
  const bool more_items =
      late.items > 0 && late.items >= others_items + std::max(2.0, 0.01 * others_items);
  const bool waits_longer = late.wait - stats::Median(std::move(waits)) >= 0.25 * step;
  return more_items || waits_longer;
}

}  // namespace

std::vector<Finding> DetectAcrossRanks(const std::vector<const analysis::RankCollectives*>& ranks,
                                       const std::vector<const analysis::RankAnalysis*>& analyses) {
  std::vector<Finding> out;
  if (ranks.size() < 2) return out;
  // Host-only: the step breakdowns of the same ranks, in the same order.
  const bool host_only = analyses.size() == ranks.size() && HostOnlyJob(analyses);
  std::vector<int64_t> last_count(ranks.size()), margin(ranks.size());  // zeros
  // Each rank's lateness at each matched collective: its start less the
  // latest of the others' (negative when another rank came later).
  std::vector<std::vector<int64_t>> lateness(ranks.size());
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
    for (size_t r = 0; r < ranks.size(); ++r) {
      int64_t others = INT64_MIN;
      for (size_t o = 0; o < ranks.size(); ++o) {
        if (o != r) others = std::max(others, m.call[o]->start_ns);
      }
      lateness[r].push_back(m.call[r]->start_ns - others);
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
    // Host-only: late at nearly every collective, by a material share of a
    // step (see the top).
    double per_step = 0, share = 0, steps = 0;
    int64_t usual_late = 0;
    if (host_only) {
      const double step = MedianStep(analyses);
      const analysis::StepBreakdown& sb = analyses[r]->step_breakdown;
      steps = static_cast<double>(sb.steps.size());
      int64_t calls = 0;
      for (const auto& [name, list] : ranks[r]->by_name) calls += static_cast<int64_t>(list.size());
      if (step <= 0 || steps <= 0) continue;
      usual_late = std::max<int64_t>(0, stats::QuantileNs(lateness[r], 0.25));
      per_step = static_cast<double>(usual_late) * static_cast<double>(calls) / steps;
      share = per_step / step;
      if (share < 0.10 || !OwnLateness(analyses, r, step)) continue;
    }
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
    if (host_only) {
      AddEvidence(f, "late_at_3_of_4_collectives_ns", usual_late);
      f.saving.per_step_ns = static_cast<int64_t>(per_step);
      f.saving.share_of_step = std::min(1.0, share);
      f.saving.total_ns = std::min<int64_t>(margin[r], static_cast<int64_t>(per_step * steps));
      f.saving.upper_bound = true;
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fastenough::findings
