// The ranks of a job taking turns (a pipeline of one rank per stage): each
// rank's own work in its steady steps (StepBreakdown::steady_work: no
// communication, no idle) compared over the time every rank was in a steady
// step, split as analysis/device_turns.h splits the devices of one process.
// The ranks' clocks are their own: on one host they agree; across hosts
// their skew blurs the split (stated in the finding). devices-take-turns,
// job-level (rank null), when the ranks take turns for at least 30% of that
// time and overlapping their work could save at least 10% of it. In a
// data-parallel job the ranks work at once, so the bound is small even when
// one of them does more (load-imbalance's case).
//
// On a host-only job (CPU ranks over gloo) the ranks share cores: under load
// the scheduler runs one rank's work while the other's waits for a core, and
// equal data-parallel ranks linked only by all-reduces read as taking turns
// (the DDP tutorial's two ranks at load 5: 42% of the common time, a bound of
// 18% of a step). Nothing in an all-reduce makes ranks take turns; a send
// that the next stage must receive does. There the finding needs the ranks
// to send to or receive from each other (PointToPoint).
#include <algorithm>
#include <cctype>
#include <string>

#include "fastenough/analysis/device_turns.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detect_all.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

analysis::DeviceTurns JobTurns(const std::vector<const analysis::RankAnalysis*>& ranks) {
  std::vector<int32_t> ids;
  std::vector<timeline::IntervalSet> work;
  std::optional<timeline::IntervalSet> common;  // every rank in a steady step
  int64_t steps = 0;
  for (const analysis::RankAnalysis* ra : ranks) {
    const analysis::StepBreakdown& sb = ra->step_breakdown;
    if (sb.whole_trace || sb.steady_work.empty()) return {};
    std::vector<timeline::Interval> steady;
    for (size_t i = sb.steady_begin; i < sb.steps.size(); ++i) {
      steady.push_back({sb.steps[i].start_ns, sb.steps[i].end_ns});
    }
    const auto set = timeline::IntervalSet::FromUnsorted(std::move(steady));
    common = common ? timeline::Intersect(*common, set) : set;
    ids.push_back(ra->rank);
    work.push_back(sb.steady_work);
  }
  if (ranks.size() < 2 || !common || common->empty()) return {};
  // Steps: the first rank's steady steps that lie in the common time.
  const analysis::StepBreakdown& first = ranks.front()->step_breakdown;
  for (size_t i = first.steady_begin; i < first.steps.size(); ++i) {
    if (common->LengthWithin(first.steps[i].start_ns, first.steps[i].end_ns) > 0) ++steps;
  }
  return analysis::TurnsOf(ids, work, *common, steps);
}

bool HostOnlyJob(const std::vector<const analysis::RankAnalysis*>& ranks) {
  return !ranks.empty() && std::all_of(ranks.begin(), ranks.end(), [](const auto* ra) {
    return ra->devices.empty();
  });
}

bool PointToPoint(const std::vector<const analysis::RankCollectives*>& ranks) {
  for (const analysis::RankCollectives* rc : ranks) {
    for (const auto& [name, calls] : rc->by_name) {
      std::string lower(name);
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (!calls.empty() && (lower.find("send") != std::string::npos ||
                             lower.find("recv") != std::string::npos)) {
        return true;
      }
    }
  }
  return false;
}

std::vector<Finding> DetectRankTurns(const analysis::DeviceTurns& t, bool host_only,
                                     bool point_to_point) {
  std::vector<Finding> out;
  if (t.windows < 3 || !WorthTurnsFinding(t)) return out;
  if (host_only && !point_to_point) return out;  // all-reduces alone: see the top
  const int64_t bound = t.overlap_bound_ns();
  const double window = static_cast<double>(t.window_ns);
  const double steps = static_cast<double>(t.windows);
  Finding f = NewFinding("devices-take-turns", Verdict::kAvoidable, -1);
  AddTurnsEvidence(f, t, steps, "rank");
  AddEvidence(f, "clocks", std::string("each rank's own: exact on one host; across hosts their "
                                       "skew blurs the split"));
  for (int32_t r : t.devices) {
    Location loc;
    loc.rank = r;
    f.where.push_back(loc);
  }
  f.saving.per_step_ns = static_cast<int64_t>(bound / steps);
  f.saving.share_of_step = std::min(1.0, bound / window);
  f.saving.total_ns = bound;
  f.saving.upper_bound = true;
  out.push_back(std::move(f));
  return out;
}

}  // namespace fastenough::findings
