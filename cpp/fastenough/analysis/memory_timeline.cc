#include "fastenough/analysis/memory_timeline.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "fastenough/util/saturating.h"

namespace fastenough::analysis {

using trace::EventStore;
using trace::kNone;
using trace::MemoryEvent;

namespace {

std::string DeviceName(int64_t type, int64_t id) {
  if (type == 0) return "cpu";
  const std::string idx = std::to_string(id);
  if (type == 1) return "cuda:" + idx;
  return "type" + std::to_string(type) + ":" + idx;
}

// Innermost cpu op of (pid, tid) running at t: the latest-starting op that
// holds t (ties: the shorter one).
std::string OpAt(const EventStore& s, int64_t pid, int64_t tid, int64_t t) {
  int32_t best = trace::kNoRow;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != trace::EventKind::kCpuOp || s.pid[i] != pid || s.tid[i] != tid) continue;
    if (s.ts_ns[i] > t || s.end_ns(i) < t) continue;
    if (best == trace::kNoRow || s.ts_ns[i] > s.ts_ns[best] ||
        (s.ts_ns[i] == s.ts_ns[best] && s.dur_ns[i] < s.dur_ns[best])) {
      best = static_cast<int32_t>(i);
    }
  }
  return best == trace::kNoRow ? std::string() : std::string(s.name_of(best));
}

MemoryTimeline Analyze(const EventStore& s, const std::vector<const MemoryEvent*>& ev,
                       const std::vector<timeline::StepWindow>& windows) {
  MemoryTimeline m;
  m.device_type = ev.front()->device_type == kNone ? 0 : ev.front()->device_type;
  m.device_id = ev.front()->device_id == kNone ? -1 : ev.front()->device_id;
  m.device = DeviceName(m.device_type, m.device_id);
  if (m.device_type == 1) {
    for (const auto& p : s.device_properties) {
      if (p.id == m.device_id && p.total_memory_bytes > 0) m.capacity_bytes = p.total_memory_bytes;
    }
  }
  m.event_count = static_cast<int64_t>(ev.size());
  m.first_ts_ns = ev.front()->ts_ns;
  m.last_ts_ns = ev.back()->ts_ns;

  // Allocated / reserved after each event: the allocator's totals when the
  // trace has them, else a running sum from 0 (the start is then unknown).
  const bool has_totals = ev.front()->total_allocated != kNone;
  std::vector<int64_t> allocated(ev.size()), reserved(ev.size(), -1);
  int64_t run = 0;
  for (size_t i = 0; i < ev.size(); ++i) {
    // Without totals the level is relative to an unknown start: frees of
    // blocks allocated before the trace cannot take it below zero.
    run = ev[i]->total_allocated != kNone ? ev[i]->total_allocated
                                          : std::max<int64_t>(0, SaturatingAdd(run, ev[i]->bytes));
    allocated[i] = run;
    if (ev[i]->total_reserved != kNone) reserved[i] = ev[i]->total_reserved;
    (ev[i]->bytes > 0 ? m.alloc_count : m.free_count) += ev[i]->bytes != 0 ? 1 : 0;
  }
  if (has_totals) {
    m.start_allocated_bytes = std::max<int64_t>(0, ev.front()->total_allocated - ev.front()->bytes);
    m.live_at_start_bytes = m.start_allocated_bytes;
  }
  m.end_allocated_bytes = allocated.back();
  m.end_reserved_bytes = reserved.back();
  size_t peak = 0;
  for (size_t i = 0; i < ev.size(); ++i) {
    if (allocated[i] > allocated[peak]) peak = i;
    m.peak_reserved_bytes = std::max(m.peak_reserved_bytes, reserved[i]);
  }
  m.peak_allocated_bytes = allocated[peak];
  m.peak_ts_ns = ev[peak]->ts_ns;
  m.reserved_at_peak_bytes = reserved[peak];
  m.peak_op = OpAt(s, ev[peak]->pid, ev[peak]->tid, ev[peak]->ts_ns);

  // Lifetimes: an allocation lives from its positive event to the negative
  // event of the same address.
  struct Live {
    int64_t bytes;
    int window;
  };
  std::unordered_map<int64_t, Live> live;
  auto window_of = [&](int64_t t) -> int {
    auto it = std::upper_bound(windows.begin(), windows.end(), t,
                               [](int64_t x, const timeline::StepWindow& w) { return x < w.start_ns; });
    if (it == windows.begin()) return -1;
    --it;
    return t < it->end_ns ? static_cast<int>(it - windows.begin()) : -1;
  };
  auto settle = [&](const Live& l, bool freed_inside) {
    if (l.window < 0) {
      m.outside_steps_bytes = SaturatingAdd(m.outside_steps_bytes, l.bytes);
      ++m.outside_steps_count;
    } else if (freed_inside) {
      m.within_step_bytes = SaturatingAdd(m.within_step_bytes, l.bytes);
      ++m.within_step_count;
    } else {
      m.outlive_step_bytes = SaturatingAdd(m.outlive_step_bytes, l.bytes);
      ++m.outlive_step_count;
    }
  };
  for (const MemoryEvent* e : ev) {
    if (e->bytes > 0) {
      const Live l{e->bytes, window_of(e->ts_ns)};
      auto [it, inserted] = live.emplace(e->addr, l);
      if (!inserted) {  // the block came back without a free in the trace
        settle(it->second, false);
        it->second = l;
      }
    } else if (e->bytes < 0) {
      auto it = live.find(e->addr);
      if (it == live.end()) continue;  // allocated before the trace began
      const Live l = it->second;
      settle(l, l.window >= 0 && e->ts_ns < windows[static_cast<size_t>(l.window)].end_ns);
      live.erase(it);
    }
  }
  // Still held at the end: sorted by address so the sums do not depend on hashing order.
  std::vector<std::pair<int64_t, Live>> rest(live.begin(), live.end());
  std::sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [addr, l] : rest) settle(l, false);

  // Per step window.
  size_t i = 0;
  int64_t current = m.start_allocated_bytes;  // allocated before event i
  int64_t current_reserved = -1;
  for (const auto& w : windows) {
    MemoryStepRow r;
    r.number = w.number;
    while (i < ev.size() && ev[i]->ts_ns < w.start_ns) {
      current = allocated[i];
      current_reserved = reserved[i];
      ++i;
    }
    r.start_allocated_bytes = current;
    r.peak_allocated_bytes = current;
    r.peak_reserved_bytes = current_reserved;
    while (i < ev.size() && ev[i]->ts_ns < w.end_ns) {
      current = allocated[i];
      current_reserved = reserved[i];
      r.peak_allocated_bytes = std::max(r.peak_allocated_bytes, current);
      r.peak_reserved_bytes = std::max(r.peak_reserved_bytes, current_reserved);
      if (ev[i]->bytes > 0) {
        ++r.alloc_count;
        r.alloc_bytes = SaturatingAdd(r.alloc_bytes, ev[i]->bytes);
      }
      ++i;
    }
    r.end_allocated_bytes = current;
    m.steps.push_back(r);
  }

  // Down-sampled timeline: per equal slice of [first, last], the most
  // allocated at any time in it (the level it starts with included).
  const int64_t span = m.last_ts_ns - m.first_ts_ns;
  const size_t n = span > 0 ? kMemoryTimelinePoints : 1;
  int64_t level = m.start_allocated_bytes >= 0 ? m.start_allocated_bytes : 0;
  size_t k = 0;
  for (size_t b = 0; b < n; ++b) {
    const auto at = [&](size_t j) {
      return m.first_ts_ns + static_cast<int64_t>((static_cast<__int128>(span + 1) * j) / n);
    };
    const int64_t t1 = at(b + 1);
    int64_t v = level;
    while (k < ev.size() && ev[k]->ts_ns < t1) {
      level = allocated[k++];
      v = std::max(v, level);
    }
    m.timeline.emplace_back(at(b), v);
  }
  return m;
}

}  // namespace

std::vector<MemoryTimeline> AnalyzeMemory(const EventStore& s, const StepStats& steps) {
  std::vector<MemoryTimeline> out;
  if (s.memory_events.empty()) return out;
  std::map<std::pair<int64_t, int64_t>, std::vector<const MemoryEvent*>> groups;
  for (const auto& e : s.memory_events) groups[{e.device_type, e.device_id}].push_back(&e);
  std::vector<timeline::StepWindow> windows;
  for (const auto& r : steps.steps) windows.push_back(r.window);
  for (auto& [key, ev] : groups) {
    std::stable_sort(ev.begin(), ev.end(),
                     [](const MemoryEvent* a, const MemoryEvent* b) { return a->ts_ns < b->ts_ns; });
    out.push_back(Analyze(s, ev, windows));
  }
  // Devices before the CPU.
  std::stable_sort(out.begin(), out.end(), [](const MemoryTimeline& a, const MemoryTimeline& b) {
    return (a.device_type == 0) < (b.device_type == 0);
  });
  return out;
}

}  // namespace fastenough::analysis
