#include "fastenough/report/depth_json.h"

#include <algorithm>

#include "fastenough/report/report_json.h"

namespace fastenough::report {

namespace {

using analysis::kStepCategoryCount;
using analysis::StepCategoryName;

void WriteCategories(JsonWriter& w, const analysis::CategoryNs& ns) {
  for (size_t k = 0; k < kStepCategoryCount; ++k) w.Field(std::string(StepCategoryName(k)) + "_ns", ns[k]);
}

void WriteMean(JsonWriter& w, std::string_view key, const analysis::CategoryMean& m, double step) {
  w.Key(key).BeginObject();
  for (size_t k = 0; k < kStepCategoryCount; ++k) w.Field(std::string(StepCategoryName(k)) + "_ns", m[k]);
  w.Field("step_ns", step);
  w.EndObject();
}

void WriteStepBreakdown(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows) {
  w.Key("step_breakdown").BeginObject();
  w.Key("categories").BeginArray();
  for (size_t k = 0; k < kStepCategoryCount; ++k) w.String(StepCategoryName(k));
  w.EndArray();
  w.Key("per_rank").BeginArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    if (HasStepBreakdown(r.ranks[i])) WriteRankStepBreakdown(w, r.ranks[i], &rows[i]);
  }
  w.EndArray();
  w.EndObject();
}

void WriteFigures(JsonWriter& w, const analysis::EfficiencyFigures& f) {
  w.Field("window_ns", f.window_ns);
  w.Field("kernel_busy_ns", f.kernel_busy_ns);
  w.Field("gpu_utilization", f.gpu_utilization);
  w.Field("sm_efficiency", f.sm_efficiency);
  w.Field("achieved_occupancy_pct", f.achieved_occupancy_pct);
  w.Field("kernel_ns", f.kernel_ns);
  w.Field("tensor_core_ns", f.tensor_core_ns);
  w.Field("tensor_core_share", f.tensor_core_share);
}

void WriteEfficiency(JsonWriter& w, const Report& r, const std::vector<RankRows>& listed) {
  w.Key("efficiency").BeginObject();
  bool has_args = false;
  for (const auto& ra : r.ranks) has_args |= ra.efficiency.has_launch_args;
  w.Field("has_launch_args", has_args);
  w.Key("devices").BeginArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    for (const auto& d : r.ranks[i].efficiency.devices) {
      if (listed[i].KeepsDevice(d.device)) WriteEfficiencyDevice(w, r.ranks[i], d, &listed[i]);
    }
  }
  w.EndArray();
  // The heaviest kernels of every rank and device together.
  std::vector<std::pair<int, const analysis::KernelOccupancy*>> rows;
  for (const auto& ra : r.ranks) {
    for (const auto& k : ra.efficiency.kernels) rows.emplace_back(ra.rank, &k);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second->total_ns > b.second->total_ns;
  });
  if (rows.size() > kEfficiencyKernelRows) rows.resize(kEfficiencyKernelRows);
  w.Key("kernels").BeginArray();
  for (const auto& [rank, k] : rows) WriteEfficiencyKernel(w, rank, *k);
  w.EndArray();
  w.EndObject();
}

void WriteMemory(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows) {
  w.Key("memory").BeginArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    for (const auto& m : r.ranks[i].memory) {
      if (KeepsMemoryRow(rows[i], m)) WriteMemoryRow(w, r.ranks[i].rank, m, &rows[i]);
    }
  }
  w.EndArray();
}

void WriteJobCriticalPath(JsonWriter& w, const analysis::JobCriticalPath& p) {
  w.BeginObject();
  w.Field("status", p.status);
  w.Field("ranks", p.ranks);
  w.Field("collectives", p.collectives);
  w.Field("window_start_ns", p.window_start_ns);
  w.Field("window_end_ns", p.window_end_ns);
  w.Field("length_ns", p.length_ns);
  w.Field("work_ns", p.work_ns);
  w.Field("transfer_ns", p.transfer_ns);
  w.Key("per_rank").BeginArray();
  for (const auto& r : p.per_rank) {
    w.BeginObject();
    w.Field("rank", static_cast<int64_t>(r.rank));
    w.Field("gating_ns", r.gating_ns);
    w.Field("gating_collectives", r.gating_collectives);
    w.Field("waited_ns", r.waited_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("top").BeginArray();
  for (const auto& t : p.top) {
    w.BeginObject();
    w.Field("collective", t.collective);
    w.Field("rank", static_cast<int64_t>(t.rank));
    w.Field("ns", t.ns);
    w.Field("count", t.count);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteCriticalPath(JsonWriter& w, const Report& r) {
  w.Key("critical_path").BeginObject();
  w.Key("per_rank").BeginArray();
  for (const auto& ra : r.ranks) {
    if (HasCriticalPath(ra)) WriteRankCriticalPath(w, ra);
  }
  w.EndArray();
  w.Key("job");  // across ranks (analysis/job_critical_path.h); null for one rank
  if (r.job_critical_path.status == "one-rank") {
    w.Null();
  } else {
    WriteJobCriticalPath(w, r.job_critical_path);
  }
  w.EndObject();
}

void WriteGraphs(JsonWriter& w, const Report& r) {
  w.Key("graphs").BeginObject();
  w.Key("per_rank").BeginArray();
  for (const auto& ra : r.ranks) {
    if (HasGraphs(ra)) WriteRankGraphs(w, ra);
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

bool HasStepBreakdown(const analysis::RankAnalysis& ra) { return !ra.step_breakdown.steps.empty(); }

bool HasCriticalPath(const analysis::RankAnalysis& ra) { return ra.critical_path.window_ns > 0; }

bool HasGraphs(const analysis::RankAnalysis& ra) {
  const auto& g = ra.graphs;
  const auto& c = ra.compiled;
  return g.launch_count != 0 || !c.regions.empty() || c.triton_kernel_count != 0;
}

bool KeepsMemoryRow(const RankRows& rows, const analysis::MemoryTimeline& m) {
  constexpr int64_t kCudaDeviceType = 1;  // c10::DeviceType::CUDA
  return m.device_type != kCudaDeviceType || rows.KeepsDevice(m.device_id);
}

void WriteRankStepBreakdown(JsonWriter& w, const analysis::RankAnalysis& ra, const RankRows* rows) {
  const auto& sb = ra.step_breakdown;
  const std::vector<size_t> kept = KeptStepRows(rows, sb.steps.size());
  w.BeginObject();
  w.Field("rank", ra.rank);
  w.Field("whole_trace", sb.whole_trace);
  w.Field("steady_begin", static_cast<int64_t>(sb.steady_begin));
  w.Field("steady_count", static_cast<int64_t>(sb.steps.size() - sb.steady_begin));
  WriteMean(w, "steady_mean", sb.steady_mean_ns, sb.steady_mean_step_ns);
  w.Field("plugin_steady_count", static_cast<int64_t>(sb.plugin_steady_count));
  WriteMean(w, "plugin_steady_mean", sb.plugin_steady_mean_ns, sb.plugin_steady_mean_step_ns);
  w.Key("worst_step");
  if (sb.worst_step < 0) w.Null(); else w.Int(sb.steps[static_cast<size_t>(sb.worst_step)].number);
  WriteOmitted(w, kept, sb.steps.size());
  w.Key("steps").BeginArray();
  for (size_t i : kept) {
    const auto& s = sb.steps[i];
    w.BeginObject();
    w.Field("number", s.number);
    w.Field("start_ns", s.start_ns);
    w.Field("end_ns", s.end_ns);
    w.Field("dur_ns", s.end_ns - s.start_ns);
    WriteCategories(w, s.ns);
    w.Key("plugin");
    if (!s.plugin_kept) {
      w.Null();
    } else {
      w.BeginObject();
      w.Field("start_ns", s.plugin_start_ns);
      w.Field("end_ns", s.plugin_end_ns);
      w.Field("dur_ns", s.plugin_end_ns - s.plugin_start_ns);
      WriteCategories(w, s.plugin_ns);
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteEfficiencyDevice(JsonWriter& w, const analysis::RankAnalysis& ra,
                           const analysis::DeviceEfficiency& d, const RankRows* rows) {
  w.BeginObject();
  w.Field("rank", ra.rank);
  w.Field("device", static_cast<int64_t>(d.device));
  w.FieldOrNull("num_sms", d.num_sms > 0 ? d.num_sms : -1);
  w.FieldOrNull("max_warps_per_sm", d.max_warps_per_sm > 0 ? d.max_warps_per_sm : -1);
  w.Key("steady").BeginObject();
  WriteFigures(w, d.steady);
  w.EndObject();
  // Per step only the ratios (the ns figures follow from the step's
  // window and stay in `steady`): a long profiler window has many steps.
  const std::vector<size_t> kept = KeptStepRows(rows, d.steps.size());
  WriteOmitted(w, kept, d.steps.size());
  w.Key("steps").BeginArray();
  for (size_t i : kept) {
    const auto& f = d.steps[i];
    w.BeginObject();
    w.Field("number", ra.steps.steps[i].window.number);
    w.Field("gpu_utilization", f.gpu_utilization);
    w.Field("sm_efficiency", f.sm_efficiency);
    w.Field("achieved_occupancy_pct", f.achieved_occupancy_pct);
    w.Field("tensor_core_share", f.tensor_core_share);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteEfficiencyKernel(JsonWriter& w, int rank, const analysis::KernelOccupancy& k) {
  w.BeginObject();
  w.Field("rank", rank);
  w.Field("device", static_cast<int64_t>(k.device));
  w.Field("name", k.name);
  w.Field("count", k.count);
  w.Field("total_ns", k.total_ns);
  w.Field("share_of_kernel_time", k.share_of_kernel_time);
  w.Field("occupancy_pct", k.occupancy_pct);
  w.Field("blocks_per_sm", k.blocks_per_sm);
  w.Field("warps_per_sm", k.warps_per_sm);
  w.Field("tensor_core", k.tensor_core);
  w.EndObject();
}

void WriteMemoryRow(JsonWriter& w, int rank, const analysis::MemoryTimeline& m,
                    const RankRows* rows) {
  w.BeginObject();
  w.Field("rank", rank);
  w.Field("device", m.device);
  w.Field("device_type", m.device_type);
  w.Field("device_id", m.device_id);
  w.FieldOrNull("capacity_bytes", m.capacity_bytes);
  w.Field("event_count", m.event_count);
  w.Field("alloc_count", m.alloc_count);
  w.Field("free_count", m.free_count);
  w.Field("first_ts_ns", m.first_ts_ns);
  w.Field("last_ts_ns", m.last_ts_ns);
  w.FieldOrNull("start_allocated_bytes", m.start_allocated_bytes);
  w.Field("peak_allocated_bytes", m.peak_allocated_bytes);
  w.Field("peak_ts_ns", m.peak_ts_ns);
  w.Key("peak_op");
  if (m.peak_op.empty()) w.Null(); else w.String(m.peak_op);
  w.FieldOrNull("reserved_at_peak_bytes", m.reserved_at_peak_bytes);
  w.FieldOrNull("cache_at_peak_bytes", m.reserved_at_peak_bytes >= 0
                                           ? m.reserved_at_peak_bytes - m.peak_allocated_bytes
                                           : -1);
  w.FieldOrNull("peak_reserved_bytes", m.peak_reserved_bytes);
  w.Field("end_allocated_bytes", m.end_allocated_bytes);
  w.FieldOrNull("end_reserved_bytes", m.end_reserved_bytes);
  w.Key("lifetimes").BeginObject();
  w.FieldOrNull("live_at_start_bytes", m.live_at_start_bytes);
  w.Field("within_step_bytes", m.within_step_bytes);
  w.Field("within_step_count", m.within_step_count);
  w.Field("outlive_step_bytes", m.outlive_step_bytes);
  w.Field("outlive_step_count", m.outlive_step_count);
  w.Field("outside_steps_bytes", m.outside_steps_bytes);
  w.Field("outside_steps_count", m.outside_steps_count);
  w.EndObject();
  const std::vector<size_t> kept = KeptStepRows(rows, m.steps.size());
  WriteOmitted(w, kept, m.steps.size());
  w.Key("steps").BeginArray();
  for (size_t i : kept) {
    const auto& s = m.steps[i];
    w.BeginObject();
    w.Field("number", s.number);
    w.FieldOrNull("start_allocated_bytes", s.start_allocated_bytes);
    w.FieldOrNull("peak_allocated_bytes", s.peak_allocated_bytes);
    w.FieldOrNull("end_allocated_bytes", s.end_allocated_bytes);
    w.FieldOrNull("peak_reserved_bytes", s.peak_reserved_bytes);
    w.Field("alloc_count", s.alloc_count);
    w.Field("alloc_bytes", s.alloc_bytes);
    w.EndObject();
  }
  w.EndArray();
  w.Key("timeline").BeginArray();
  for (const auto& [t, v] : m.timeline) w.BeginArray().Int(t).Int(v).EndArray();
  w.EndArray();
  w.EndObject();
}

void WriteRankCriticalPath(JsonWriter& w, const analysis::RankAnalysis& ra) {
  const auto& cp = ra.critical_path;
  w.BeginObject();
  w.Field("rank", ra.rank);
  w.Field("status", cp.status);
  w.Field("cuda_sync_events", cp.cuda_sync_events);
  w.Field("window_start_ns", cp.window_start_ns);
  w.Field("window_end_ns", cp.window_end_ns);
  w.Field("window_ns", cp.window_ns);
  w.Field("steady_steps", cp.steady_steps);
  w.Field("steps_analysed", static_cast<int64_t>(cp.steps.size()));
  w.Field("node_count", cp.node_count);
  w.Field("edge_count", cp.edge_count);
  w.Field("length_ns", cp.length_ns);
  w.Field("host_ns", cp.host_ns);
  w.Field("device_ns", cp.device_ns);
  w.Field("launch_delay_ns", cp.launch_delay_ns);
  w.Field("kernel_gap_ns", cp.kernel_gap_ns);
  w.Field("sync_ns", cp.sync_ns);
  w.Key("streams").BeginArray();
  for (const auto& s : cp.streams) {
    w.BeginObject();
    w.Field("device", static_cast<int64_t>(s.device));
    w.Field("stream", s.stream);
    w.Field("compute_ns", s.compute_ns);
    w.Field("comm_ns", s.comm_ns);
    w.Field("memcpy_ns", s.memcpy_ns);
    w.Field("memset_ns", s.memset_ns);
    w.Field("kernel_gap_ns", s.kernel_gap_ns);
    w.Field("launch_delay_ns", s.launch_delay_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("top").BeginArray();
  for (const auto& t : cp.top) {
    w.BeginObject();
    w.Field("kind", t.kind);
    w.Field("name", t.name);
    w.Field("ns", t.ns);
    w.Field("count", t.count);
    w.EndObject();
  }
  w.EndArray();
  w.Key("steps").BeginArray();
  for (const auto& s : cp.steps) {
    w.BeginObject();
    w.Field("number", s.number);
    w.Field("start_ns", s.start_ns);
    w.Field("end_ns", s.end_ns);
    w.Field("path_ns", s.path_ns);
    w.Field("host_ns", s.host_ns);
    w.Field("device_ns", s.device_ns);
    w.Field("launch_delay_ns", s.launch_delay_ns);
    w.Field("kernel_gap_ns", s.kernel_gap_ns);
    w.Field("sync_ns", s.sync_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteRankGraphs(JsonWriter& w, const analysis::RankAnalysis& ra) {
  const auto& g = ra.graphs;
  const auto& c = ra.compiled;
  w.BeginObject();
  w.Field("rank", ra.rank);
  w.Field("launch_count", g.launch_count);
  w.Field("launches_with_activity", g.launches_with_activity);
  w.Field("launches_without_activity", g.launches_without_activity);
  w.Field("kernels_missing", g.kernels_missing());
  w.Field("device_op_count", g.device_op_count);
  w.Field("kernel_count", g.kernel_count);
  w.Field("device_ns", g.device_ns);
  w.Field("triton_kernel_count", c.triton_kernel_count);
  w.Field("triton_kernels_outside_regions", c.triton_kernels_outside);
  w.Key("compiled_regions").BeginArray();
  for (const auto& reg : c.regions) {
    w.BeginObject();
    w.Field("name", reg.name);
    w.Field("instances", reg.instances);
    w.Field("kernel_count", reg.kernel_count);
    w.Field("triton_kernel_count", reg.triton_kernel_count);
    w.Field("kernel_ns", reg.kernel_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

namespace {

// One turns split, as device_turns.per_rank[] (who: "devices", count:
// "windows") and device_turns.job (who: "ranks", count: "steps") write it.
// rows: the devices listed (row_bound.h); the others are summed in
// `omitted`: {count, busy_ns}.
void WriteTurns(JsonWriter& w, const analysis::DeviceTurns& t, std::string_view who,
                std::string_view count, const RankRows* rows = nullptr) {
  // Two listed devices at least (the schema's minimum): else every one.
  size_t kept = 0;
  for (int32_t id : t.devices) kept += rows == nullptr || rows->KeepsDevice(id) ? 1 : 0;
  const bool all = kept < 2;
  const auto listed = [&](size_t i) {
    return all || rows == nullptr || rows->KeepsDevice(t.devices[i]);
  };
  int64_t omitted = 0, omitted_busy = 0;
  w.Key(who).BeginArray();
  for (size_t i = 0; i < t.devices.size(); ++i) {
    if (listed(i)) w.Int(t.devices[i]);
  }
  w.EndArray();
  w.Key("busy_ns").BeginArray();
  for (size_t i = 0; i < t.busy_ns.size(); ++i) {
    if (i >= t.devices.size() || listed(i)) {
      w.Int(t.busy_ns[i]);
    } else {
      ++omitted;
      omitted_busy += t.busy_ns[i];
    }
  }
  w.EndArray();
  if (omitted > 0) {
    w.Key("omitted").BeginObject().Field("count", omitted).Field("busy_ns", omitted_busy);
    w.EndObject();
  }
  w.Field(count, t.windows);
  w.Field("window_ns", t.window_ns);
  w.Field("all_busy_ns", t.all_busy_ns);
  w.Field("taking_turns_ns", t.some_busy_ns);
  w.Field("all_idle_ns", t.all_idle_ns);
  w.Field("overlap_bound_ns", t.overlap_bound_ns());
}

}  // namespace

void WriteRankDeviceTurns(JsonWriter& w, const analysis::RankAnalysis& ra, const RankRows* rows) {
  w.BeginObject();
  w.Field("rank", ra.rank);
  WriteTurns(w, ra.device_turns, "devices", "windows", rows);
  w.EndObject();
}

void WriteDepth(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows) {
  WriteStepBreakdown(w, r, rows);
  WriteEfficiency(w, r, rows);
  WriteMemory(w, r, rows);
  WriteCriticalPath(w, r);
  WriteGraphs(w, r);
  w.Key("device_turns").BeginObject();
  w.Key("per_rank").BeginArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    if (r.ranks[i].device_turns.measured()) WriteRankDeviceTurns(w, r.ranks[i], &rows[i]);
  }
  w.EndArray();
  w.Key("job");  // the ranks of a job taking turns (findings/rank_turns.cc)
  if (!r.rank_turns.measured()) {
    w.Null();
  } else {
    w.BeginObject();
    WriteTurns(w, r.rank_turns, "ranks", "steps");
    w.EndObject();
  }
  w.EndObject();
}

}  // namespace fastenough::report
