#include "fastenough/rundir/phase_table.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <tuple>

namespace fastenough::rundir {

namespace {

// "cuda:1" -> 1, "npu:0" -> 0; "cpu" or "" -> -1.
int LocalIndex(const std::string& device) {
  size_t colon = device.find(':');
  if (colon == std::string::npos || device.compare(0, colon, "cpu") == 0) return -1;
  return std::atoi(device.c_str() + colon + 1);
}

void JoinSamples(const RunFiles& files, int physical, PhaseRow* row) {
  double util_sum = 0, power_sum = 0, cpu_sum = 0;
  int util_n = 0, power_n = 0, cpu_n = 0;
  std::map<int64_t, double> cpu_sum_by_pid;
  for (const SampleRow& s : files.samples) {
    if (s.wall_ns < row->start_wall_ns || s.wall_ns > row->end_wall_ns) continue;
    if (s.source == "proc-pid") {
      if (s.cpu_pct) cpu_sum_by_pid[s.device] += *s.cpu_pct;
      continue;
    }
    if (s.source == "proc") {
      if (s.cpu_pct) {
        cpu_sum += *s.cpu_pct;
        ++cpu_n;
      }
      if (s.rss_bytes) row->rss_max = std::max(row->rss_max.value_or(0), *s.rss_bytes);
      continue;
    }
    if (physical >= 0 && s.device != physical) continue;
    ++row->samples;
    if (s.util_pct) {
      util_sum += *s.util_pct;
      ++util_n;
    }
    if (s.power_w) {
      power_sum += *s.power_w;
      ++power_n;
    }
    if (s.mem_used_bytes) row->mem_used_max = std::max(row->mem_used_max.value_or(0), *s.mem_used_bytes);
    if (s.mem_total_bytes) row->mem_total = std::max(row->mem_total.value_or(0), *s.mem_total_bytes);
  }
  if (util_n > 0) row->util_mean = util_sum / util_n;
  if (power_n > 0) row->power_mean_w = power_sum / power_n;
  if (cpu_n > 0) row->cpu_mean_pct = cpu_sum / cpu_n;
  // Divided by the tree's ticks: a process absent from a tick used no CPU.
  if (cpu_n > 0) {
    for (const auto& [pid, sum] : cpu_sum_by_pid) row->cpu_mean_pct_by_pid[pid] = sum / cpu_n;
  }
}

}  // namespace

std::vector<PhaseRow> BuildPhaseTable(const RunFiles& files, const PhaseTableInputs& inputs) {
  // Sort edges by time per process so that out-of-order appends from several
  // threads still pair correctly.
  std::vector<const PhaseEdge*> edges;
  for (const PhaseEdge& e : files.edges) edges.push_back(&e);
  std::stable_sort(edges.begin(), edges.end(), [](const PhaseEdge* a, const PhaseEdge* b) {
    return std::tie(a->rank, a->pid, a->mono_ns) < std::tie(b->rank, b->pid, b->mono_ns);
  });

  std::vector<PhaseRow> rows;
  std::vector<std::string> devices;  // per row: the device of its memory record
  std::map<std::tuple<int, int64_t, std::string>, std::vector<std::pair<const PhaseEdge*, size_t>>> open;
  std::vector<int64_t> begin_mono;
  for (const PhaseEdge* e : edges) {
    auto key = std::make_tuple(e->rank, e->pid, e->phase);
    if (e->begin) {
      PhaseRow r;
      r.name = e->phase;
      r.mode = e->mode;
      r.rank = e->rank;
      r.pid = e->pid;
      r.automatic = e->automatic;
      r.complete = false;
      r.start_wall_ns = e->wall_ns;
      rows.push_back(r);
      devices.push_back(e->device);
      begin_mono.push_back(e->mono_ns);
      open[key].push_back({e, rows.size() - 1});
      continue;
    }
    auto it = open.find(key);
    if (it == open.end() || it->second.empty()) continue;  // an end without begin: ignored
    size_t idx = it->second.back().second;
    it->second.pop_back();
    PhaseRow& r = rows[idx];
    r.complete = true;
    r.end_wall_ns = e->wall_ns;
    r.host_ns = e->mono_ns - begin_mono[idx];
    r.alloc_peak = e->alloc_peak;
    r.reserved_peak = e->reserved_peak;
    if (!e->device.empty()) devices[idx] = e->device;
  }

  for (size_t i = 0; i < rows.size(); ++i) {
    PhaseRow& r = rows[i];
    if (!r.complete) {
      // The process died inside this phase: close it at the run's end.
      int64_t end = inputs.run_end_wall_ns.value_or(r.start_wall_ns);
      r.end_wall_ns = std::max(end, r.start_wall_ns);
      r.host_ns = r.end_wall_ns - r.start_wall_ns;
    }
    int local = LocalIndex(devices[i]);
    int physical = -1;
    if (local >= 0) {
      physical = local < static_cast<int>(inputs.visible_physical.size())
                     ? inputs.visible_physical[local]
                     : local;
    } else if (devices[i] == "cpu") {
      physical = -2;  // a CPU process: no device row belongs to it
    }
    JoinSamples(files, physical, &r);
    if (r.name == "profile") {
      auto it = inputs.trace_busy_share.find(r.rank);
      if (it != inputs.trace_busy_share.end()) {
        r.device_busy_share = it->second;
        r.busy_source = "trace";
      }
    }
    if (!r.device_busy_share && r.util_mean) {
      r.device_busy_share = *r.util_mean / 100.0;
      r.busy_source = "util";
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const PhaseRow& a, const PhaseRow& b) {
    return std::tie(a.start_wall_ns, a.rank) < std::tie(b.start_wall_ns, b.rank);
  });
  return rows;
}

namespace {

// Host-time weighted mean of an optional figure over two rows.
std::optional<double> Weighted(const std::optional<double>& a, int64_t wa,
                               const std::optional<double>& b, int64_t wb) {
  if (!a) return b;
  if (!b) return a;
  const double total = static_cast<double>(std::max<int64_t>(0, wa) + std::max<int64_t>(0, wb));
  if (total <= 0) return (*a + *b) / 2;
  return (*a * std::max<int64_t>(0, wa) + *b * std::max<int64_t>(0, wb)) / total;
}

std::optional<int64_t> Max(const std::optional<int64_t>& a, const std::optional<int64_t>& b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

void MergeInto(PhaseRow* into, const PhaseRow& p) {
  const int64_t wa = into->host_ns, wb = p.host_ns;
  into->start_wall_ns = std::min(into->start_wall_ns, p.start_wall_ns);
  into->end_wall_ns = std::max(into->end_wall_ns, p.end_wall_ns);
  into->complete = into->complete && p.complete;
  into->device_busy_share = Weighted(into->device_busy_share, wa, p.device_busy_share, wb);
  if (into->busy_source.empty()) into->busy_source = p.busy_source;
  into->util_mean = Weighted(into->util_mean, wa, p.util_mean, wb);
  into->power_mean_w = Weighted(into->power_mean_w, wa, p.power_mean_w, wb);
  into->cpu_mean_pct = Weighted(into->cpu_mean_pct, wa, p.cpu_mean_pct, wb);
  into->mem_used_max = Max(into->mem_used_max, p.mem_used_max);
  into->mem_total = Max(into->mem_total, p.mem_total);
  into->rss_max = Max(into->rss_max, p.rss_max);
  into->alloc_peak = Max(into->alloc_peak, p.alloc_peak);
  into->reserved_peak = Max(into->reserved_peak, p.reserved_peak);
  for (const auto& [pid, pct] : p.cpu_mean_pct_by_pid) {
    auto it = into->cpu_mean_pct_by_pid.find(pid);
    into->cpu_mean_pct_by_pid[pid] =
        it == into->cpu_mean_pct_by_pid.end() ? pct : *Weighted(it->second, wa, pct, wb);
  }
  into->samples += p.samples;
  into->host_ns = std::max<int64_t>(0, wa) + std::max<int64_t>(0, wb);
  into->instances += p.instances;
}

// Merges rows whose key (as `key` makes it) matches the row `last` holds for
// it; `last` forgets a key's row when `consecutive` and another row of the
// same (rank, pid, mode) comes between.
template <typename Key>
std::vector<PhaseRow> MergeBy(const std::vector<PhaseRow>& rows, bool consecutive, Key key) {
  using Seq = std::tuple<int, int64_t, std::string>;  // a mode's own sequence
  std::vector<PhaseRow> out;
  std::map<Seq, size_t> last_of_seq;                 // its last row in `out`
  std::map<decltype(key(rows.front())), size_t> by_key;
  for (const PhaseRow& p : rows) {
    const Seq seq{p.rank, p.pid, p.mode};
    size_t target = out.size();
    if (consecutive) {
      auto it = last_of_seq.find(seq);
      if (it != last_of_seq.end()) {
        const PhaseRow& prev = out[it->second];
        if (prev.name == p.name && prev.automatic == p.automatic) target = it->second;
      }
    } else {
      auto it = by_key.find(key(p));
      if (it != by_key.end()) target = it->second;
    }
    if (target == out.size()) {
      out.push_back(p);
      by_key[key(p)] = target;
    } else {
      MergeInto(&out[target], p);
    }
    last_of_seq[seq] = target;
  }
  std::stable_sort(out.begin(), out.end(), [](const PhaseRow& a, const PhaseRow& b) {
    return a.start_wall_ns < b.start_wall_ns;
  });
  return out;
}

}  // namespace

std::vector<PhaseRow> MergePhaseRows(const std::vector<PhaseRow>& rows, size_t max_rows) {
  if (rows.empty()) return {};
  auto key = [](const PhaseRow& p) {
    return std::make_tuple(p.rank, p.pid, p.name, p.mode, p.automatic);
  };
  std::vector<PhaseRow> out = MergeBy(rows, true, key);
  if (out.size() > max_rows) out = MergeBy(out, false, key);
  return out;
}

}  // namespace fastenough::rundir
