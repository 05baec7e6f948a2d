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

std::vector<std::string> StepCategories() {
  std::vector<std::string> out;
  for (size_t k = 0; k < kStepCategoryCount; ++k) out.emplace_back(StepCategoryName(k));
  return out;
}

void WriteStepBreakdownRanks(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows) {
  w.BeginArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    if (HasStepBreakdown(r.ranks[i])) WriteRankStepBreakdown(w, r.ranks[i], &rows[i]);
  }
  w.EndArray();
}

bool HasLaunchArgs(const Report& r) {
  bool has_args = false;
  for (const auto& ra : r.ranks) has_args |= ra.efficiency.has_launch_args;
  return has_args;
}

void WriteEfficiencyDevices(JsonWriter& w, const Report& r, const std::vector<RankRows>& listed) {
  w.BeginArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    for (const auto& d : r.ranks[i].efficiency.devices) {
      if (listed[i].KeepsDevice(d.device)) WriteEfficiencyDevice(w, r.ranks[i], d, &listed[i]);
    }
  }
  w.EndArray();
}

void WriteEfficiencyKernels(JsonWriter& w, const Report& r) {
  // The heaviest kernels of every rank and device together.
  std::vector<std::pair<int, const analysis::KernelOccupancy*>> rows;
  for (const auto& ra : r.ranks) {
    for (const auto& k : ra.efficiency.kernels) rows.emplace_back(ra.rank, &k);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second->total_ns > b.second->total_ns;
  });
  if (rows.size() > kEfficiencyKernelRows) rows.resize(kEfficiencyKernelRows);
  w.BeginArray();
  for (const auto& [rank, k] : rows) WriteEfficiencyKernel(w, rank, *k);
  w.EndArray();
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

void WriteCriticalPathRanks(JsonWriter& w, const Report& r) {
  w.BeginArray();
  for (const auto& ra : r.ranks) {
    if (HasCriticalPath(ra)) WriteRankCriticalPath(w, ra);
  }
  w.EndArray();
}

void WriteGraphsRanks(JsonWriter& w, const Report& r) {
  w.BeginArray();
  for (const auto& ra : r.ranks) {
    if (HasGraphs(ra)) WriteRankGraphs(w, ra);
  }
  w.EndArray();
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

void WriteDeviceTurnsRanks(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows) {
  w.BeginArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    if (r.ranks[i].device_turns.measured()) WriteRankDeviceTurns(w, r.ranks[i], &rows[i]);
  }
  w.EndArray();
}

}  // namespace fastenough::report
