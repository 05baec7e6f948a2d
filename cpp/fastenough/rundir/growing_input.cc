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
// Saving (an upper bound): each step of a run down to the run's fastest early
// step, the cost of a short input, which is what a cached step costs at most;
// steps count at the median of their stretch of the run, so that a stall of
// the machine is not counted as recomputation.
#include <algorithm>
#include <cstdio>
#include <map>

#include "fastenough/findings/catalog.h"
#include "fastenough/rundir/run_findings.h"
#include "fastenough/rundir/step_summary.h"

namespace fastenough::rundir {

namespace {

struct Run {
  size_t first = 0, last = 0;  // indices into the step list, inclusive
  int64_t length_first = 0, length_last = 0;
  size_t sliding = 0;  // steps after `last` at length_last (a cropped, sliding context)
};

int64_t Median(std::vector<int64_t> v) { return v.empty() ? 0 : Quantile(std::move(v), 0.5); }

std::string Ms(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", static_cast<double>(ns) / 1e6);
  return buf;
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
        const int64_t late = Median(last_steps);
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
    for (const Run& r : runs) {
      std::vector<int64_t> head, tail, all;
      // Warm-up steps (first calls: allocations, lazy init) are no part of
      // the waste a cache removes; they are left out unless the run never
      // settled enough to leave warm-up (a smooth growth may not).
      for (bool with_warmup : {false, true}) {
        all.clear();
        for (size_t k = r.first; k <= r.last + r.sliding; ++k) {
          if (list[k]->phase == "profile") continue;  // the profiler's own overhead
          if (!with_warmup && list[k]->phase == "warmup") continue;
          all.push_back(list[k]->end_mono_ns - list[k]->start_mono_ns);
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
      const int64_t early = Quantile(head, 0.25), late = Median(tail);
      // The time must grow with the input (at least 1.5x) and the input at least 2x.
      if (late < early * 3 / 2 || r.length_last < 2 * r.length_first) continue;
      // What a short input costs: the first tenth's fastest step.
      const int64_t base = *std::min_element(head.begin(), head.end());
      // Summed by stretches of the run at their median step time: the growth
      // counts, a step that a busy machine stalled for 50 ms does not (the
      // saving claimed 99% of such a run).
      const size_t stretch = std::max<size_t>(4, all.size() / 8);
      for (size_t from = 0; from < all.size(); from += stretch) {
        const size_t to = std::min(all.size(), from + stretch);
        const int64_t m = Median(std::vector<int64_t>(all.begin() + static_cast<std::ptrdiff_t>(from),
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
                  static_cast<long long>(shown->last - shown->first + 1), Ms(first_ns).c_str(),
                  Ms(last_ns).c_str());
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
