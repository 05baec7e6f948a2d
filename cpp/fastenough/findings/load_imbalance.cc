// load-imbalance (cross-rank): the ranks of a job do unequal work per step.
// A rank's work in a steady step is the step less its communication and its
// unattributed time (analysis/step_breakdown.h: kernel, memcpy, memset,
// runtime, data loading and CPU ops, each instant counted once), so what a
// rank spends waiting for the others inside a collective is not work. The
// heaviest rank is named when even its lightest steady step (the window's
// last one left out) holds at least 10% more work than the other ranks'
// typical step (the median of theirs), a consistent excess, not a few noisy
// steps, and its median excess is at least 10% of a step: every step then
// waits for it at the next collective; then the next heaviest, against the
// ranks lighter than it, and so on while one passes. Balanced, a step would
// shorten by at most the rank's excess over the mean work (over the typical
// step of the ranks not named, when several are): the saving, an upper bound.
//
// On a host-only job (no rank has device work: CPU ranks over gloo) a rank's
// wall time is not its work: ranks share cores, and an op that waits for a
// core lasts longer with no more to do (the DDP tutorial's two equal ranks
// read 5.6% of a step apart under load). There a rank is heavier only for
// what the scheduler cannot make: more work items per step (ops and kernels,
// StepBreakdownRow::work_items, which ranks running the same op sequence
// count alike however long the ops took) or a data loader that holds it in
// every step, even its lightest (a loader that sleeps or reads, which no op
// count sees). A rank heavier in wall time for neither is passed over. Its
// time there is read from the ranks' lightest steady steps, not their typical
// ones: a descheduled op only ever lasts longer, so the lightest step is the
// truest, on the heavy rank and on the others alike (a 2-rank job at load 11:
// the equal rank's typical step held 12 ms of work stretched from its 1.6 ms
// lightest, above the heavy rank's 5 ms lightest, and the typical-step rule
// named nobody), and its work is the time its host ops ran less their own
// thread's collectives (StepBreakdownRow::host_work_ns, where known); its
// excess must be at least 10% of the lightest steady step. It reads the
// ranks' step breakdowns only, which rank summaries keep (report/rank_summary.h).
#include <algorithm>
#include <numeric>
#include <string>

#include "fastenough/analysis/step_breakdown.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/findings/detectors.h"
#include "fastenough/stats/quantile.h"

namespace fastenough::findings {

namespace {

int64_t WorkOf(const analysis::StepBreakdownRow& row) {
  int64_t work = 0;
  for (size_t c = 0; c < analysis::kStepCategoryCount; ++c) {
    const auto cat = static_cast<analysis::StepCategory>(c);
    if (cat == analysis::StepCategory::kCommunication || cat == analysis::StepCategory::kOther) {
      continue;
    }
    work += row.ns[c];
  }
  return work;
}

// The project's one median (stats/quantile.h), on a copy.
double Median(std::vector<double> v) { return stats::Median(std::move(v)); }

struct RankWork {
  int rank = 0;
  std::vector<double> steps;  // work per steady step
  std::vector<double> host_steps;  // its host ops' time per steady step (-1: unknown)
  double median = 0, min = 0, step_median = 0;
  double step_min = 0;    // the shortest steady step
  double dataloader = 0;  // median data loading per steady step
  double dataloader_min = 0;  // the least data loading of a steady step
  double items = 0;       // median work items per steady step; 0: not counted
  int64_t device_ns = 0;  // device work (kernel, memcpy, memset) in the steady steps
};

}  // namespace

std::vector<Finding> DetectLoadImbalance(const std::vector<const analysis::RankAnalysis*>& ranks) {
  std::vector<Finding> out;
  std::vector<RankWork> work;
  // The last step every rank profiled (by ProfilerStep number): the ranks'
  // windows may end steps apart (each rank's memory guard stops its own), and
  // a step after another rank's window ended holds that rank's profiler stop
  // as a wait (a 2-rank job: rank 1 stopped after step 23, rank 0 after 24,
  // and rank 0's steps read 139 ms against rank 1's 30).
  int64_t common_last = -1;
  bool numbered = true;
  for (const analysis::RankAnalysis* ra : ranks) {
    const auto& steps = ra->step_breakdown.steps;
    if (steps.empty() || steps.back().number < 0) {
      numbered = false;
      break;
    }
    common_last = common_last < 0 ? steps.back().number
                                  : std::min(common_last, steps.back().number);
  }
  for (const analysis::RankAnalysis* ra : ranks) {
    const analysis::StepBreakdown& sb = ra->step_breakdown;
    if (sb.whole_trace) return out;  // no steps to compare
    RankWork w;
    w.rank = ra->rank;
    std::vector<double> durations, loading, items;
    // Not the window's last step: the profiler's stop, on this rank or on the
    // one it waits for, cuts or stretches it (0.9 ms of work where the others
    // held 5 ms, in a real gloo job).
    for (size_t i = sb.steady_begin; i + 1 < sb.steps.size(); ++i) {
      if (numbered && sb.steps[i].number >= common_last) break;
      w.steps.push_back(static_cast<double>(WorkOf(sb.steps[i])));
      w.host_steps.push_back(static_cast<double>(sb.steps[i].host_work_ns));
      durations.push_back(static_cast<double>(sb.steps[i].end_ns - sb.steps[i].start_ns));
      loading.push_back(static_cast<double>(
          sb.steps[i].ns[static_cast<size_t>(analysis::StepCategory::kDataLoader)]));
      items.push_back(static_cast<double>(sb.steps[i].work_items));
      for (auto c : {analysis::StepCategory::kKernel, analysis::StepCategory::kMemcpy,
                     analysis::StepCategory::kMemset}) {
        w.device_ns += sb.steps[i].ns[static_cast<size_t>(c)];
      }
    }
    if (w.steps.size() < 3) return out;  // too few steps to call it consistent
    w.median = Median(w.steps);
    w.min = *std::min_element(w.steps.begin(), w.steps.end());
    w.step_median = Median(durations);
    w.step_min = *std::min_element(durations.begin(), durations.end());
    w.dataloader = Median(loading);
    w.dataloader_min = *std::min_element(loading.begin(), loading.end());
    w.items = Median(items);
    work.push_back(std::move(w));
  }
  if (work.size() < 2) return out;
  // Host-only with the items counted on every rank: wall time alone names
  // nobody, and a rank's time is its lightest step's (see the top).
  const bool by_items = std::all_of(work.begin(), work.end(), [](const RankWork& w) {
    return w.device_ns == 0 && w.items > 0;
  });
  // There the work is the host ops' own time (StepBreakdownRow::host_work_ns),
  // where the summaries carry it: the step breakdown books the main thread's
  // matmuls as communication while gloo's all-reduce runs beside them on its
  // own thread (a heavy rank's lightest step read 3.3 ms of work beside 5 ms
  // of planted matmuls).
  const bool host_known = by_items && std::all_of(work.begin(), work.end(), [](const RankWork& w) {
    return std::all_of(w.host_steps.begin(), w.host_steps.end(), [](double v) { return v >= 0; });
  });
  if (host_known) {
    for (RankWork& w : work) {
      w.steps = w.host_steps;
      w.median = Median(w.steps);
      w.min = *std::min_element(w.steps.begin(), w.steps.end());
    }
  }
  auto time_of = [&](const RankWork& w) { return by_items ? w.min : w.median; };
  std::vector<double> times, steps, shortest;
  for (const RankWork& w : work) {
    times.push_back(time_of(w));
    steps.push_back(w.step_median);
    shortest.push_back(w.step_min);
  }
  const double step = Median(steps);
  // What "10% of a step" is measured against.
  const double step_ref = by_items ? Median(shortest) : step;
  const double mean = std::accumulate(times.begin(), times.end(), 0.0) / times.size();
  if (step <= 0 || step_ref <= 0) return out;
  const auto light = std::min_element(work.begin(), work.end(),
                                      [&](const RankWork& a, const RankWork& b) {
                                        return time_of(a) < time_of(b);
                                      });
  // Heaviest first. Each rank named is left out of the typical step that the
  // next is compared with: two ranks slow for two reasons (traceml's fault
  // injection: rank 1 computes 30 ms more inside its backward, rank 2's
  // DataLoader sleeps 40 ms) are both named, the second against the ranks
  // that do neither (with both in the typical step the second read as
  // typical). At least one rank stays unnamed: the typical step is its.
  std::vector<const RankWork*> order;
  for (const RankWork& w : work) order.push_back(&w);
  std::stable_sort(order.begin(), order.end(), [&](const RankWork* a, const RankWork* b) {
    return time_of(*a) > time_of(*b);
  });
  double unnamed_typical = 0;
  std::vector<const RankWork*> named;
  for (size_t h = 0; h + 1 < order.size(); ++h) {
    const RankWork& heavy = *order[h];
    // The other ranks' typical step (with two ranks, the other one's).
    std::vector<double> others, others_median;
    for (size_t o = h + 1; o < order.size(); ++o) {
      others.push_back(time_of(*order[o]));
      others_median.push_back(order[o]->median);
    }
    const double typical = Median(others);
    if (typical <= 0) break;
    // 10% of a step: on CPU ranks sharing cores, op times stretch with the
    // scheduling (a 4-rank gloo job on 2 busy cores: the rank that had slept
    // ran its ops 1.7x longer, 4.6% of its step); a material imbalance is larger.
    // Consistent, not a few long steps: even the heavy rank's lightest step
    // holds 10% more work. On CPU ranks that share cores a descheduled op only
    // ever lasts longer, so a rank's lightest step is its truest (a two-stage
    // pipeline of equal stages under load: 4.9, 4.5, 8.7 ms against 4.3).
    if (!by_items && (heavy.min < 1.10 * typical || heavy.median - typical < 0.10 * step)) break;
    double others_items = 0;
    if (by_items) {
      // Its lightest step against the others' lightest (typical of them).
      if (heavy.min < 1.10 * typical || heavy.min - typical < 0.10 * step_ref) continue;
      // More work items than the others' typical step (ranks running the same
      // op sequence count alike: a margin of 1% or 2 items for the odd op a
      // rank runs alone), or a data loader that holds it longer in every step
      // (its lightest loading over the others' typical) by 10% of a step.
      std::vector<double> item_counts, loading;
      for (size_t o = h + 1; o < order.size(); ++o) {
        item_counts.push_back(order[o]->items);
        loading.push_back(order[o]->dataloader);
      }
      others_items = Median(item_counts);
      const bool more_items = heavy.items >= others_items + std::max(2.0, 0.01 * others_items);
      const bool loads = heavy.dataloader_min - Median(loading) >= 0.10 * step;
      if (!more_items && !loads) continue;  // the same work, stretched: not named
    }
    Finding f = NewFinding("load-imbalance", Verdict::kAvoidable, -1);
    AddEvidence(f, "rank", static_cast<int64_t>(heavy.rank));
    AddEvidence(f, "ranks", static_cast<int64_t>(work.size()));
    AddEvidence(f, "work_ns_per_step", static_cast<int64_t>(heavy.median));
    AddEvidence(f, "other_ranks_work_ns_per_step", static_cast<int64_t>(Median(others_median)));
    AddEvidence(f, "lightest_rank", static_cast<int64_t>(light->rank));
    AddEvidence(f, "lightest_work_ns_per_step", static_cast<int64_t>(light->median));
    AddEvidence(f, "excess_share", Round3(heavy.median / typical - 1.0));
    // What the excess is: the rank's data loading (dataloader-bound names it
    // too) or its compute.
    if (heavy.dataloader > 0) {
      AddEvidence(f, "dataloader_ns_per_step", static_cast<int64_t>(heavy.dataloader));
    }
    AddEvidence(f, "steady_steps", static_cast<int64_t>(heavy.steps.size()));
    AddEvidence(f, "step_median_ns", static_cast<int64_t>(step));
    if (by_items) {
      AddEvidence(f, "work_items_per_step", static_cast<int64_t>(heavy.items));
      AddEvidence(f, "other_ranks_work_items_per_step", static_cast<int64_t>(others_items));
      // What the saving reads (see the top): the lightest steady steps.
      AddEvidence(f, "lightest_step_work_ns", static_cast<int64_t>(heavy.min));
      AddEvidence(f, "other_ranks_lightest_step_work_ns", static_cast<int64_t>(typical));
    }
    if (!named.empty()) AddEvidence(f, "heavier_ranks_named", static_cast<int64_t>(named.size()));
    Location loc;
    loc.rank = heavy.rank;
    f.where.push_back(loc);
    out.push_back(std::move(f));
    named.push_back(&heavy);
    unnamed_typical = typical;
  }
  // Balanced, a step would shorten by at most the rank's excess over the mean
  // work when one rank is named (an upper bound), over the typical step of
  // the ranks not named when several are (the mean then holds the others
  // named); those ranks are slow in the same steps, so their savings overlap
  // (overlaps.cc).
  for (size_t h = 0; h < out.size(); ++h) {
    const double base = out.size() == 1 ? mean : unnamed_typical;
    const double saving = std::max(0.0, time_of(*named[h]) - base);
    out[h].saving.per_step_ns = static_cast<int64_t>(saving);
    out[h].saving.share_of_step = std::min(1.0, saving / step);
    out[h].saving.upper_bound = true;
  }
  return out;
}

}  // namespace fastenough::findings
