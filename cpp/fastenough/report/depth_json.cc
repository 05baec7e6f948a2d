#include "fastenough/report/depth_json.h"

#include <algorithm>

#include "fastenough/report/fields/json_fields.h"
#include "fastenough/report/fields/rank_fields.h"
#include "fastenough/report/fields/report_fields.h"
#include "fastenough/report/fields/turns_fields.h"
#include "fastenough/report/report_json.h"

namespace fastenough::report {

using analysis::kStepCategoryCount;
using analysis::StepCategoryName;

void WriteStepBreakdownValue(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows) {
  w.BeginObject();
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

void WriteEfficiencyValue(JsonWriter& w, const Report& r, const std::vector<RankRows>& listed) {
  w.BeginObject();
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

void WriteMemoryValue(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows) {
  w.BeginArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    for (const auto& m : r.ranks[i].memory) {
      if (KeepsMemoryRow(rows[i], m)) WriteMemoryRow(w, r.ranks[i].rank, m, &rows[i]);
    }
  }
  w.EndArray();
}

void WriteCriticalPathValue(JsonWriter& w, const Report& r) {
  w.BeginObject();
  w.Key("per_rank").BeginArray();
  for (const auto& ra : r.ranks) {
    if (HasCriticalPath(ra)) WriteRankCriticalPath(w, ra);
  }
  w.EndArray();
  w.Key("job");  // across ranks (analysis/job_critical_path.h); null for one rank
  if (r.job_critical_path.status == "one-rank") {
    w.Null();
  } else {
    fields::WriteObject(w, r.job_critical_path);
  }
  w.EndObject();
}

void WriteGraphsValue(JsonWriter& w, const Report& r) {
  w.BeginObject();
  w.Key("per_rank").BeginArray();
  for (const auto& ra : r.ranks) {
    if (HasGraphs(ra)) WriteRankGraphs(w, ra);
  }
  w.EndArray();
  w.EndObject();
}

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
  fields::WriteObject(w, ra.step_breakdown, {ra.rank, rows, &ra});
}

void WriteEfficiencyDevice(JsonWriter& w, const analysis::RankAnalysis& ra,
                           const analysis::DeviceEfficiency& d, const RankRows* rows) {
  fields::WriteObject(w, d, {ra.rank, rows, &ra});
}

void WriteEfficiencyKernel(JsonWriter& w, int rank, const analysis::KernelOccupancy& k) {
  fields::WriteObject(w, k, {rank});
}

void WriteMemoryRow(JsonWriter& w, int rank, const analysis::MemoryTimeline& m,
                    const RankRows* rows) {
  fields::WriteObject(w, m, {rank, rows});
}

void WriteRankCriticalPath(JsonWriter& w, const analysis::RankAnalysis& ra) {
  fields::WriteObject(w, ra.critical_path, {ra.rank});
}

void WriteRankGraphs(JsonWriter& w, const analysis::RankAnalysis& ra) {
  fields::WriteObject<analysis::RankAnalysis, fields::Graphs>(w, ra, {ra.rank});
}

void WriteRankDeviceTurns(JsonWriter& w, const analysis::RankAnalysis& ra, const RankRows* rows) {
  fields::WriteObject<analysis::DeviceTurns, fields::TurnsOfRank>(w, ra.device_turns,
                                                                  {ra.rank, rows});
}

void WriteDeviceTurnsValue(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows) {
  w.BeginObject();
  w.Key("per_rank").BeginArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    if (r.ranks[i].device_turns.measured()) WriteRankDeviceTurns(w, r.ranks[i], &rows[i]);
  }
  w.EndArray();
  w.Key("job");  // the ranks of a job taking turns (findings/rank_turns.cc)
  if (!r.rank_turns.measured()) {
    w.Null();
  } else {
    fields::WriteObject<analysis::DeviceTurns, fields::TurnsOfJob>(w, r.rank_turns);
  }
  w.EndObject();
}

}  // namespace fastenough::report
