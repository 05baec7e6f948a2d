#include "fastenough/analysis/step_breakdown.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>

#include "fastenough/analysis/device_breakdown.h"
#include "fastenough/analysis/op_roles.h"
#include "fastenough/timeline/interval_set.h"

namespace fastenough::analysis {

using trace::EventKind;
using trace::EventStore;

const char* StepCategoryName(size_t c) {
  static const char* const kNames[kStepCategoryCount] = {
      "kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other"};
  return c < kStepCategoryCount ? kNames[c] : "other";
}

namespace {

constexpr int8_t kNoRole = -1;
constexpr size_t kRoles = kStepCategoryCount - 1;  // every category but Other

// Host-op role by name id, decided once per distinct name.
int8_t HostRole(std::string_view name) {
  if (name.substr(0, 13) == "ProfilerStep#") return kNoRole;
  if (IsDataLoadingName(name)) return static_cast<int8_t>(StepCategory::kDataLoader);
  if (IsCollectiveOpName(name)) return static_cast<int8_t>(StepCategory::kCommunication);
  return static_cast<int8_t>(StepCategory::kCpuExec);
}

struct Window {
  int64_t start = 0;
  int64_t end = 0;
};

// The plugin's step windows (StepParser._find_device_steps and
// _update_steps_duration); kept[i] false for the trailing steps it drops.
std::vector<Window> PluginWindows(const EventStore& s, const std::vector<Window>& host,
                                  std::vector<bool>* kept) {
  const size_t n = host.size();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  std::vector<int64_t> dev_min(n, kMax), dev_max(n, kMin), matched(n, 0);
  std::vector<int64_t> unmatched_ends;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!trace::IsDeviceActivity(s.kind[i])) continue;
    const int32_t l = s.launch_row[i];
    size_t step = n;
    if (l != trace::kNoRow) {
      // The step whose host range holds the whole launch call.
      auto it = std::upper_bound(host.begin(), host.end(), s.ts_ns[l],
                                 [](int64_t t, const Window& w) { return t < w.start; });
      if (it != host.begin()) {
        --it;
        if (s.end_ns(l) <= it->end) step = static_cast<size_t>(it - host.begin());
      }
    }
    if (step == n) {
      unmatched_ends.push_back(s.end_ns(i));
      continue;
    }
    dev_min[step] = std::min(dev_min[step], s.ts_ns[i]);
    dev_max[step] = std::max(dev_max[step], s.end_ns(i));
    ++matched[step];
  }
  kept->assign(n, true);
  const bool use_gpu = std::any_of(matched.begin(), matched.end(), [](int64_t m) { return m > 0; });
  if (!use_gpu) return host;
  int64_t prev_end = host[0].start;
  if (dev_min[0] != kMax) {
    for (int64_t e : unmatched_ends) {
      if (e < dev_min[0]) prev_end = std::max(prev_end, e);
    }
  }
  std::vector<Window> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t start = std::max(prev_end, host[i].start);
    int64_t end = host[i].end;
    if (dev_min[i] == kMax) {
      end = std::max(end, start);
    } else {
      end = std::max(end, dev_max[i]);
      if (end < start) end = start;
    }
    out[i] = {start, end};
    prev_end = end;
  }
  if (n > 1) {
    size_t last = n;
    for (size_t i = n; i-- > 0;) {
      if (matched[i] > 0) {
        last = i;
        break;
      }
    }
    size_t keep = last + 1;
    if (last > 0 && static_cast<double>(matched[last - 1]) * 0.8 > static_cast<double>(matched[last])) {
      keep = last;
    }
    for (size_t i = keep; i < n; ++i) (*kept)[i] = false;
  }
  return out;
}

void Split(const std::vector<timeline::IntervalSet>& exclusive, const Window& w, CategoryNs* ns) {
  int64_t used = 0;
  for (size_t k = 0; k < kRoles; ++k) {
    (*ns)[k] = exclusive[k].LengthWithin(w.start, w.end);
    used += (*ns)[k];
  }
  (*ns)[kRoles] = (w.end - w.start) - used;
}

// At most `cap` ranges: the shortest gaps closed first (a rank summary keeps
// the work of every steady step; merging sub-gaps only adds their length).
timeline::IntervalSet CoarsenedTo(const timeline::IntervalSet& set, size_t cap) {
  const auto& v = set.intervals();
  if (v.size() <= cap) return set;
  std::vector<int64_t> gaps;
  for (size_t i = 1; i < v.size(); ++i) gaps.push_back(v[i].start - v[i - 1].end);
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<long>(v.size() - cap), gaps.end());
  const int64_t closed = gaps[v.size() - cap];  // gaps up to this length are closed
  timeline::IntervalSet out;
  timeline::Interval cur = v.front();
  size_t kept = 1;
  for (size_t i = 1; i < v.size(); ++i) {
    const bool close = v[i].start - cur.end <= closed && (v.size() - i) + kept > cap;
    if (close) {
      cur.end = v[i].end;
    } else {
      out.AppendSorted(cur);
      cur = v[i];
      ++kept;
    }
  }
  out.AppendSorted(cur);
  return out;
}

}  // namespace

StepBreakdown AnalyzeStepBreakdown(const EventStore& s, const StepStats& stats) {
  StepBreakdown out;
  std::vector<Window> host;
  std::vector<int64_t> numbers;
  for (const auto& row : stats.steps) {
    host.push_back({row.window.start_ns, row.window.end_ns});
    numbers.push_back(row.window.number);
  }
  out.steady_begin = stats.steady_begin;
  if (host.empty()) {
    // No ProfilerStep#N: the plugin's single step over the host's cpu ops.
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.kind[i] != EventKind::kCpuOp) continue;
      lo = std::min(lo, s.ts_ns[i]);
      hi = std::max(hi, s.end_ns(i));
    }
    if (lo >= hi) return out;
    host.push_back({lo, hi});
    numbers.push_back(-1);
    out.whole_trace = true;
    out.steady_begin = 0;
  }
  std::vector<bool> kept;
  const std::vector<Window> plugin = PluginWindows(s, host, &kept);
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < host.size(); ++i) {
    lo = std::min({lo, host[i].start, plugin[i].start});
    hi = std::max({hi, host[i].end, plugin[i].end});
  }

  // The role of every row that touches [lo, hi). Names repeat: classify per id.
  std::vector<int8_t> host_role(s.strings().size(), -2);
  std::vector<int8_t> comm_name(s.strings().size(), -1);
  std::vector<std::vector<timeline::Interval>> ranges(kRoles);
  std::vector<int64_t> items(host.size(), 0);
  // Per thread: its host ops' ranges and its collectives' (host_work_ns).
  std::map<int64_t, std::pair<std::vector<timeline::Interval>, std::vector<timeline::Interval>>>
      by_thread;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.end_ns(i) <= lo || s.ts_ns[i] >= hi || s.dur_ns[i] <= 0) continue;
    int8_t role = kNoRole;
    switch (s.kind[i]) {
      case EventKind::kKernel: {
        int8_t& c = comm_name[s.name[i]];
        if (c < 0) c = IsCommunicationKernel(s, i) ? 1 : 0;
        bool comm = c == 1;
        const int32_t op = s.cpu_op_row[i];
        if (!comm && op != trace::kNoRow) comm = IsCollectiveOpName(s.name_of(op));
        role = static_cast<int8_t>(comm ? StepCategory::kCommunication : StepCategory::kKernel);
        break;
      }
      case EventKind::kMemcpy: role = static_cast<int8_t>(StepCategory::kMemcpy); break;
      case EventKind::kMemset: role = static_cast<int8_t>(StepCategory::kMemset); break;
      case EventKind::kRuntime:
      case EventKind::kDriver: role = static_cast<int8_t>(StepCategory::kRuntime); break;
      case EventKind::kCpuOp:
      case EventKind::kUserAnnotation: {
        int8_t& r = host_role[s.name[i]];
        if (r == -2) r = HostRole(s.name_of(i));
        role = r;
        break;
      }
      default: break;
    }
    if (role != kNoRole) ranges[static_cast<size_t>(role)].push_back({s.ts_ns[i], s.end_ns(i)});
    if (s.kind[i] == EventKind::kCpuOp || s.kind[i] == EventKind::kUserAnnotation) {
      if (role == static_cast<int8_t>(StepCategory::kCpuExec) ||
          role == static_cast<int8_t>(StepCategory::kDataLoader)) {
        by_thread[s.tid[i]].first.push_back({s.ts_ns[i], s.end_ns(i)});
      } else if (role == static_cast<int8_t>(StepCategory::kCommunication)) {
        by_thread[s.tid[i]].second.push_back({s.ts_ns[i], s.end_ns(i)});
      }
    }
    if (role == static_cast<int8_t>(StepCategory::kCpuExec) ||
        role == static_cast<int8_t>(StepCategory::kKernel)) {
      // A work item of the host step it starts in, a kernel where it was
      // launched (host windows are in time order).
      const int32_t l = s.kind[i] == EventKind::kKernel ? s.launch_row[i] : trace::kNoRow;
      const int64_t at = l != trace::kNoRow ? s.ts_ns[l] : s.ts_ns[i];
      auto it = std::upper_bound(host.begin(), host.end(), at,
                                 [](int64_t t, const Window& w) { return t < w.start; });
      if (it != host.begin() && at < std::prev(it)->end) {
        ++items[static_cast<size_t>(std::prev(it) - host.begin())];
      }
    }
  }
  timeline::IntervalSet host_work;
  for (auto& [tid, two] : by_thread) {
    host_work = timeline::Union(
        host_work, timeline::Subtract(timeline::IntervalSet::FromUnsorted(std::move(two.first)),
                                      timeline::IntervalSet::FromUnsorted(std::move(two.second))));
  }
  // Exclusive parts: each role keeps what the roles before it left.
  std::vector<timeline::IntervalSet> exclusive(kRoles);
  timeline::IntervalSet covered;
  for (size_t k = 0; k < kRoles; ++k) {
    timeline::IntervalSet r = timeline::IntervalSet::FromUnsorted(std::move(ranges[k]));
    exclusive[k] = k == 0 ? r : timeline::Subtract(r, covered);
    covered = k == 0 ? std::move(r) : timeline::Union(covered, r);
  }

  for (size_t i = 0; i < host.size(); ++i) {
    StepBreakdownRow row;
    row.number = numbers[i];
    row.start_ns = host[i].start;
    row.end_ns = host[i].end;
    Split(exclusive, host[i], &row.ns);
    row.work_items = items[i];
    row.host_work_ns = host_work.LengthWithin(host[i].start, host[i].end);
    row.plugin_kept = kept[i];
    if (kept[i]) {
      row.plugin_start_ns = plugin[i].start;
      row.plugin_end_ns = plugin[i].end;
      Split(exclusive, plugin[i], &row.plugin_ns);
    }
    out.steps.push_back(row);
  }

  // The steady work: what no collective and no idle took, in the steady steps.
  if (!out.whole_trace) {
    std::vector<timeline::Interval> steady;
    for (size_t i = out.steady_begin; i < host.size(); ++i) {
      steady.push_back({host[i].start, host[i].end});
    }
    const size_t comm = static_cast<size_t>(StepCategory::kCommunication);
    timeline::IntervalSet work = timeline::Subtract(covered, exclusive[comm]);
    out.steady_work = CoarsenedTo(
        timeline::Intersect(work, timeline::IntervalSet::FromUnsorted(std::move(steady))),
        kMaxWorkIntervals);
  }

  // Steady means and the worst steady step.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  out.steady_mean_ns.fill(nan);
  out.plugin_steady_mean_ns.fill(nan);
  out.steady_mean_step_ns = nan;
  out.plugin_steady_mean_step_ns = nan;
  CategoryMean sum{}, plugin_sum{};
  double step_sum = 0, plugin_step_sum = 0;
  size_t count = 0;
  int64_t worst = -1;
  for (size_t i = out.steady_begin; i < out.steps.size(); ++i) {
    const auto& r = out.steps[i];
    ++count;
    step_sum += static_cast<double>(r.end_ns - r.start_ns);
    for (size_t k = 0; k < kStepCategoryCount; ++k) sum[k] += static_cast<double>(r.ns[k]);
    if (r.end_ns - r.start_ns > worst) {
      worst = r.end_ns - r.start_ns;
      out.worst_step = static_cast<int>(i);
    }
    if (r.plugin_kept) {
      ++out.plugin_steady_count;
      plugin_step_sum += static_cast<double>(r.plugin_end_ns - r.plugin_start_ns);
      for (size_t k = 0; k < kStepCategoryCount; ++k) plugin_sum[k] += static_cast<double>(r.plugin_ns[k]);
    }
  }
  if (count > 0) {
    for (size_t k = 0; k < kStepCategoryCount; ++k) out.steady_mean_ns[k] = sum[k] / count;
    out.steady_mean_step_ns = step_sum / count;
  }
  if (out.plugin_steady_count > 0) {
    const auto c = static_cast<double>(out.plugin_steady_count);
    for (size_t k = 0; k < kStepCategoryCount; ++k) out.plugin_steady_mean_ns[k] = plugin_sum[k] / c;
    out.plugin_steady_mean_step_ns = plugin_step_sum / c;
  }
  return out;
}

}  // namespace fastenough::analysis
