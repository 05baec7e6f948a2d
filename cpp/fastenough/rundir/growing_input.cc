// recompute-prefix. The shape in steps.jsonl of autoregressive generation
// without a cache, e.g. word_language_model's generate.py with the
// Transformer (input = torch.cat([input, word], 0) each step):
//   tokens/items: 2, 3, 4, ... 301   step time: 5.8 ms ... 100 ms
// With a cache every call sees one new position and its time stays flat.
// A context cropped to a window (minGPT's generate: idx[:, -block_size:])
// grows to the window and then stays at its length while it slides: each of
// those steps re-runs the whole window for one new token, the same waste (a
// rolling KV cache is the fix). Steps of the window's length right after a
// growing run, as slow as its last ones, belong to it.
// Saving (an upper bound): each step of a run down to the smallest cost one
// step can have (StepFloor below), which is at most what a cached step costs;
// steps count at the median of their stretch of the run, so that a stall of
// the machine is not counted as recomputation.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "fastenough/findings/catalog.h"
#include "fastenough/rundir/run_findings.h"
#include "fastenough/rundir/step_summary.h"
#include "fastenough/stats/quantile.h"
#include "fastenough/util/units.h"

namespace fastenough::rundir {

namespace {

struct Run {
  size_t first = 0, last = 0;  // indices into the step list, inclusive
  int64_t length_first = 0, length_last = 0;
  size_t sliding = 0;  // steps after `last` at length_last (a cropped, sliding context)
};

// Medians of whole nanoseconds (0 for none) and of the fit's doubles: the
// project's one quantile (stats/quantile.h).
int64_t MedianNs(std::vector<int64_t> v) { return stats::QuantileNs(std::move(v), 0.5); }

std::string Duration(int64_t ns) { return util::FormatDuration(static_cast<double>(ns)); }

struct Floor {
  int64_t ns = 0;     // the base each step's saving is measured down to
  std::string model;  // how it was found (the finding's saving_model)
};

// The smallest cost one step of a growing run can have, which is the most a
// cached step costs: the floor (value at length 0) of a robust line of step
// time against input length, less its uncertainty, and never above the
// fastest step seen. The fastest early step alone is not a bound: under
// `fastenough run` the first kAgentTimedSteps steady steps still pay the
// agent's Python step timing (about 0.5 ms a step in word_lm.py), and a
// cached step skips per-call work of the model's full forward
// (nn.TransformerEncoder's checks): its fix, a KV cache, measured 65.5%
// [63.0, 67.9] with `ab` against a claim of 42.1% from that base. The line is
// Theil-Sen over the medians of stretches of the run (a stalled step moves no
// median; the agent-timed steps are left out); its uncertainty is the largest
// distance of a stretch's median from it (curvature, the noise of a loaded
// machine). When the floor is not determined (fewer than 4 stretches, no
// growth, a floor at or below 0) the base is 0: the whole step bounds the saving.
Floor StepFloor(const std::vector<int64_t>& lens, const std::vector<int64_t>& ns,
                const std::vector<bool>& agent_timed) {
  const int64_t fastest = ns.empty() ? 0 : *std::min_element(ns.begin(), ns.end());
  std::vector<double> fit_len, fit_ns;
  for (size_t k = 0; k < ns.size(); ++k) {
    if (agent_timed[k]) continue;
    fit_len.push_back(static_cast<double>(lens[k]));
    fit_ns.push_back(static_cast<double>(ns[k]));
  }
  std::vector<std::pair<double, double>> points;  // (length, step ns), stretch medians
  const size_t stretch = std::max<size_t>(4, fit_ns.size() / 8);
  for (size_t from = 0; from + stretch <= fit_ns.size(); from += stretch) {
    const auto a = static_cast<std::ptrdiff_t>(from), b = static_cast<std::ptrdiff_t>(from + stretch);
    points.emplace_back(
        stats::Median(std::vector<double>(fit_len.begin() + a, fit_len.begin() + b)),
        stats::Median(std::vector<double>(fit_ns.begin() + a, fit_ns.begin() + b)));
  }
  const char* fallback = nullptr;
  std::vector<double> slopes;
  for (size_t i = 0; i < points.size(); ++i) {
    for (size_t j = i + 1; j < points.size(); ++j) {
      const double dl = points[j].first - points[i].first;
      if (dl != 0) slopes.push_back((points[j].second - points[i].second) / dl);
    }
  }
  double floor = 0, spread = 0;
  if (points.size() < 4) {
    fallback = "fewer than 4 stretches of steps past the agent's timed ones";
  } else if (slopes.empty() || stats::Median(slopes) <= 0) {
    fallback = "the step time does not grow along the fit";
  } else {
    const double slope = stats::Median(slopes);
    std::vector<double> at0;
    for (const auto& [l, t] : points) at0.push_back(t - slope * l);
    floor = stats::Median(at0);
    for (double c : at0) spread = std::max(spread, std::abs(c - floor));
    if (floor - spread <= 0) fallback = "the fit's floor less its uncertainty is not above 0";
  }
  Floor out;
  char buf[320];
  if (fallback != nullptr) {
    std::snprintf(buf, sizeof buf,
                  "an upper bound: each step's whole time (base 0; the floor of a fit of step "
                  "time against length is not determined: %s)",
                  fallback);
    out.model = buf;
    return out;
  }
  const auto fit = static_cast<int64_t>(floor - spread);
  if (fit < fastest) {
    out.ns = fit;
    std::snprintf(buf, sizeof buf,
                  "an upper bound: each step down to %s, the floor (length 0) of a robust fit of "
                  "step time against length, %s, less its uncertainty, %s",
                  Duration(fit).c_str(), Duration(static_cast<int64_t>(floor)).c_str(),
                  Duration(static_cast<int64_t>(spread)).c_str());
  } else {
    out.ns = fastest;
    std::snprintf(buf, sizeof buf,
                  "an upper bound: each step down to %s, the fastest step of the run (below the "
                  "floor of a fit of step time against length, %s less %s)",
                  Duration(fastest).c_str(), Duration(static_cast<int64_t>(floor)).c_str(),
                  Duration(static_cast<int64_t>(spread)).c_str());
  }
  out.model = buf;
  return out;
}

}  // namespace

void AddGrowingInputFindings(const std::vector<StepRecord>& steps,
                             const std::vector<AgentRecord>& agents,
                             std::vector<findings::Finding>* out) {
  std::map<std::pair<int, std::string>, std::vector<const StepRecord*>> by;
  for (const StepRecord& s : steps) by[{s.rank, s.mode}].push_back(&s);
  for (auto& [key, list] : by) {
    std::sort(list.begin(), list.end(),
              [](const StepRecord* a, const StepRecord* b) { return a->index < b->index; });
    // The first steady steps of a mode are still timed by the agent in Python.
    std::vector<bool> agent_timed(list.size(), false);
    for (size_t k = 0, seen = 0; k < list.size() && seen < kAgentTimedSteps; ++k) {
      if (list[k]->phase != "steady") continue;
      agent_timed[k] = true;
      ++seen;
    }
    // Input length per item, or -1 where a step does not say.
    std::vector<int64_t> len(list.size(), -1);
    for (size_t i = 0; i < list.size(); ++i) {
      const StepRecord& s = *list[i];
      if (s.items && s.tokens && *s.items > 0 && *s.tokens % *s.items == 0) {
        len[i] = *s.tokens / *s.items;
      }
    }
    std::vector<Run> runs;
    size_t i = 0;
    while (i + 1 < len.size()) {
      const int64_t d = len[i] >= 0 && len[i + 1] >= 0 ? len[i + 1] - len[i] : 0;
      if (d < 1 || d > 16) {
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j + 1 < len.size() && len[j + 1] >= 0 && len[j + 1] - len[j] == d) ++j;
      if (static_cast<int>(j - i + 1) >= kMinGrowingRun) {
        Run r{i, j, len[i], len[j], 0};
        // A sliding window at the length the context grew to: as slow as the
        // run's last steps (within a factor 2 of their median), contiguous.
        std::vector<int64_t> last_steps;
        for (size_t k = j >= 3 ? j - 3 : 0; k <= j; ++k) {
          last_steps.push_back(list[k]->end_mono_ns - list[k]->start_mono_ns);
        }
        const int64_t late = MedianNs(last_steps);
        size_t k = j + 1;
        while (k < len.size() && len[k] == len[j]) {
          const int64_t dk = list[k]->end_mono_ns - list[k]->start_mono_ns;
          if (list[k]->phase != "profile" && (dk * 2 < late || dk > 2 * late)) break;
          ++k;
        }
        r.sliding = k - j - 1;
        runs.push_back(r);
        j = k - 1;
      }
      i = j;
    }
    int64_t saving = 0, run_ns = 0, run_steps = 0;
    int64_t first_ns = 0, last_ns = 0;
    const Run* shown = nullptr;
    Floor shown_floor;
    for (const Run& r : runs) {
      std::vector<int64_t> head, tail, all, all_len;
      std::vector<bool> all_timed;
      // Warm-up steps (first calls: allocations, lazy init) are no part of
      // the waste a cache removes; they are left out unless the run never
      // settled enough to leave warm-up (a smooth growth may not).
      for (bool with_warmup : {false, true}) {
        all.clear();
        all_len.clear();
        all_timed.clear();
        for (size_t k = r.first; k <= r.last + r.sliding; ++k) {
          if (list[k]->phase == "profile") continue;  // the profiler's own overhead
          if (!with_warmup && list[k]->phase == "warmup") continue;
          all.push_back(list[k]->end_mono_ns - list[k]->start_mono_ns);
          all_len.push_back(len[k]);
          all_timed.push_back(agent_timed[k]);
        }
        if (all.size() >= static_cast<size_t>(kMinGrowingRun) / 2) break;
      }
      if (all.size() < static_cast<size_t>(kMinGrowingRun) / 2) continue;
      // The first and last tenth of the run (4 steps at least), by their
      // medians: single steps on a busy machine jump by 50x, and a tenth's
      // median does not see them; a quarter's would, but it also averages the
      // growth away (a 150-token generation whose fixed cost per step
      // dominates grew 1.4x quarter to quarter and 2x end to end).
      const size_t tenth = std::max<size_t>(4, all.size() / 10);
      head.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(tenth));
      tail.assign(all.end() - static_cast<std::ptrdiff_t>(tenth), all.end());
      // The head by its lower quartile: under `fastenough run` on a loaded
      // two-core machine 35 of generate.py's first 60 steady steps once ran at
      // 50-80 ms against 0.6 ms after them (the median of the head then read the
      // stall, 54 ms, above the tail's 6.6 ms, and the finding came in two runs of
      // three); a quarter of the head's steps left unstalled still gives the
      // short input's time.
      const int64_t early = stats::QuantileNs(head, 0.25), late = MedianNs(tail);
      // The time must grow with the input (at least 1.5x) and the input at least 2x.
      // Growth is judged floor against floor (each tenth's 10th percentile): a
      // loaded two-core machine stalls a step by a scheduler quantum or more
      // (word_lm.py's 150-word generation under the agent at load 4-5: the head's
      // steps 2 ms or 10-14 ms, about half stalled, its lower quartile 2.16 ms
      // against a tail of 3.5 ms unstalled, 1.62x; the finding came in one run of
      // two), and only the least of each tenth is the step's own cost.
      const int64_t early_floor = stats::QuantileNs(head, 0.1);
      const int64_t late_floor = stats::QuantileNs(tail, 0.1);
      if (late_floor < early_floor * 3 / 2 || r.length_last < 2 * r.length_first) continue;
      // The least a step can cost, which a cached step does not undercut.
      const Floor floor = StepFloor(all_len, all, all_timed);
      const int64_t base = floor.ns;
      // Summed by stretches of the run at their median step time: the growth
      // counts, a step that a busy machine stalled for 50 ms does not (the
      // saving claimed 99% of such a run).
      const size_t stretch = std::max<size_t>(4, all.size() / 8);
      for (size_t from = 0; from < all.size(); from += stretch) {
        const size_t to = std::min(all.size(), from + stretch);
        const int64_t m =
            MedianNs(std::vector<int64_t>(all.begin() + static_cast<std::ptrdiff_t>(from),
                                          all.begin() + static_cast<std::ptrdiff_t>(to)));
        const auto n = static_cast<int64_t>(to - from);
        saving += n * std::max<int64_t>(0, m - base);
        run_ns += n * m;
      }
      run_steps += static_cast<int64_t>(all.size());
      if (shown == nullptr) {
        shown = &r;
        first_ns = early;
        last_ns = late;
        shown_floor = floor;
      }
    }
    if (shown == nullptr || run_ns <= 0) continue;
    findings::Finding f =
        findings::NewFinding("recompute-prefix", findings::Verdict::kAvoidable, key.first);
    f.source = "agent";
    char title[256];
    std::snprintf(title, sizeof title,
                  "Each %s step feeds the whole input so far again: length %lld -> %lld over "
                  "%lld steps, step time %s -> %s (no key/value cache)",
                  key.second.empty() ? "model" : key.second.c_str(),
                  static_cast<long long>(shown->length_first),
                  static_cast<long long>(shown->length_last),
                  static_cast<long long>(shown->last - shown->first + 1),
                  Duration(first_ns).c_str(), Duration(last_ns).c_str());
    f.title = title;
    if (shown->sliding > 0) {
      char more[160];
      std::snprintf(more, sizeof more,
                    ", then a window of %lld positions slid over %lld more steps, each "
                    "re-running it for one new token",
                    static_cast<long long>(shown->length_last),
                    static_cast<long long>(shown->sliding));
      f.title += more;
      f.evidence.emplace_back("sliding_steps", static_cast<int64_t>(shown->sliding));
    }
    f.evidence.emplace_back("growing_runs", static_cast<int64_t>(runs.size()));
    f.evidence.emplace_back("steps_in_runs", run_steps);
    f.evidence.emplace_back("length_first", shown->length_first);
    f.evidence.emplace_back("length_last", shown->length_last);
    f.evidence.emplace_back("step_ns_first", first_ns);
    f.evidence.emplace_back("step_ns_last", last_ns);
    f.evidence.emplace_back("base_step_ns", shown_floor.ns);
    f.evidence.emplace_back("saving_model", shown_floor.model);
    f.saving.total_ns = saving;
    f.saving.per_step_ns = saving / std::max<int64_t>(1, run_steps);
    f.saving.share_of_step = static_cast<double>(saving) / static_cast<double>(run_ns);
    for (const AgentRecord& a : agents) {
      if (!a.in_the_loop() || a.rank.value_or(0) != key.first) continue;
      auto site = a.call_site.find(key.second);
      if (site != a.call_site.end()) f.where.push_back(site->second);
    }
    out->push_back(std::move(f));
  }
}

}  // namespace fastenough::rundir
