// Layout of fastenough.report/1 as written here (docs/report-schema.md plus the
// keys this file adds; all times in integer nanoseconds unless the key says):
//
//   steps:   {count, median_ns, p10_ns, p90_ns, steady_count, steady_median_ns,
//             steady_p10_ns, steady_p90_ns, steady_steps_per_s, items_per_s,
//             tokens_per_s, real_tokens_per_s, mode, per_rank: [{rank, count, steady_begin, median_ns,
//             p10_ns, p90_ns, omitted?, windows: [{number, start_ns, end_ns, dur_ns,
//             device_busy_ns}]}]}
//     Percentiles interpolate linearly (numpy default); null when no steps.
//     A rank of more than kReportStepRows steps lists some (row_bound.h):
//     omitted: {count, kept: [[begin, end]...]}; count, steady_begin and the
//     percentiles stay those of all its steps.
//   devices: [{rank, device, name, start_ns, end_ns, span_ns, busy_ns, idle_ns,
//             idle_breakdown: {host_wait_ns, kernel_wait_ns, other_ns},
//             stream_gap_ns, device_idle: {...}, compute_ns, comm_ns, memcpy_ns, memset_ns,
//             kernel_count, comm_kernel_count, memcpy_count, memset_count,
//             short_kernel_count,
//             streams: [{stream, op_count, start_ns, end_ns, busy_ns, gap_count,
//                        host_wait_ns, kernel_wait_ns, other_ns}]}]
//   devices_omitted (only when a rank has more than kReportDeviceRows devices):
//            [{rank, count, busy_ns, kernel_count}]: the devices `devices`,
//            efficiency.devices and memory do not list, summed
//     idle_ns = span_ns - busy_ns: time no stream of the device had work.
//     idle_breakdown (HTA's definition) = the gaps of every stream, summed;
//     stream_gap_ns is its total. With several streams it can exceed idle_ns.
//     device_idle: {host_wait_ns, kernel_wait_ns, other_ns} = idle_ns split by
//     cause (the gaps when the whole device had nothing); sums to idle_ns.
//   launch:  {kernel_count, launched_count, short_kernel_count,
//             launch_delay_median_ns, launch_delay_p90_ns, queue_delay_median_ns,
//             queue_delay_p90_ns, launch_call_median_ns, per_rank: [same + rank]}
//             (overall = the ranks pooled by summing counts; medians per rank only
//             when more than one rank)
//   top_kernels: [{name, count, total_ns, mean_ns, share_of_busy}]
//     share_of_busy: the union of its instances' time on each device over the busy time
//   top_ops / top_ops_by_self: [{name, count, total_ns, self_ns}]
//   step_breakdown, efficiency, memory, critical_path, graphs: depth_json.h
#include "fastenough/report/report_json.h"

#include "fastenough/report/depth_json.h"
#include "fastenough/report/fields/finding_fields.h"
#include "fastenough/report/fields/json_fields.h"
#include "fastenough/report/fields/rank_fields.h"
#include "fastenough/report/fields/report_fields.h"
#include "fastenough/report/fields/report_object_fields.h"
#include "fastenough/report/json_writer.h"

namespace fastenough::report {

void WriteFinding(JsonWriter& w, const findings::Finding& f) { fields::WriteObject(w, f); }

void WriteStepsValue(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows) {
  w.BeginObject();
  fields::WriteFields(w, r.steps);
  w.Key("per_rank").BeginArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) WriteRankSteps(w, r.ranks[i], &rows[i]);
  w.EndArray();
  w.EndObject();
}

void WriteDevicesValue(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows) {
  w.BeginArray();
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    const auto& ra = r.ranks[i];
    for (size_t d : rows[i].devices) WriteDevice(w, ra.rank, ra.devices[d]);
  }
  w.EndArray();
}

std::vector<DevicesOmittedRow> DevicesOmitted(const Report& r, const std::vector<RankRows>& rows) {
  std::vector<DevicesOmittedRow> out;
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    if (!rows[i].devices_bounded) continue;
    const auto& ra = r.ranks[i];
    DevicesOmittedRow row{ra.rank, static_cast<int64_t>(ra.devices.size() - rows[i].devices.size())};
    for (const auto& d : ra.devices) {
      if (rows[i].KeepsDevice(d.device)) continue;
      row.busy_ns += d.busy_ns;
      row.kernel_count += d.kernel_count;
    }
    out.push_back(row);
  }
  return out;
}

void WriteLaunchRanks(JsonWriter& w, const Report& r) {
  w.BeginArray();
  for (const auto& ra : r.ranks) WriteRankLaunch(w, ra);
  w.EndArray();
}

void WriteInput(JsonWriter& w, const InputInfo& in) { fields::WriteObject(w, in); }

namespace {

// A file's text read through T's declaration.
template <class T>
StatusOr<T> DeclaredFromJson(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(text.data(), text.size()).get(root) != simdjson::SUCCESS) {
    return InvalidArgument("not JSON");
  }
  Status status;
  ObjectReader o(root, "$", &status);
  T value;
  if (status.ok()) fields::ReadFields(o, value);
  if (!status.ok()) return status;
  return value;
}

}  // namespace

StatusOr<BatchSweep> BatchSweepFromJson(std::string_view text) {
  return DeclaredFromJson<BatchSweep>(text);
}

StatusOr<MetaRecord> MetaRecordFromJson(std::string_view text) {
  return DeclaredFromJson<MetaRecord>(text);
}

StatusOr<MetaAgent> MetaAgentFromJson(std::string_view text) {
  return DeclaredFromJson<MetaAgent>(text);
}

std::string ShapeRowsToJson(const std::vector<analysis::ShapeRow>& rows) {
  JsonWriter w;
  w.BeginArray();
  for (const analysis::ShapeRow& row : rows) {
    fields::WriteObject<analysis::ShapeRow, fields::ShapeRowInReport>(w, row);
  }
  w.EndArray();
  return w.str();
}

void WriteMeta(JsonWriter& w, const Meta& m) {
  w.Key("meta");
  fields::WriteObject(w, m);
}

std::vector<size_t> KeptStepRows(const RankRows* rows, size_t n) {
  std::vector<size_t> kept;
  if (rows == nullptr) {
    kept.resize(n);
    for (size_t i = 0; i < n; ++i) kept[i] = i;
    return kept;
  }
  for (size_t i : rows->steps) {
    if (i >= n) break;
    kept.push_back(i);
  }
  return kept;
}

void WriteOmitted(JsonWriter& w, const std::vector<size_t>& kept, size_t n) {
  if (kept.size() >= n) return;
  w.Key("omitted").BeginObject();
  w.Field("count", static_cast<int64_t>(n - kept.size()));
  w.Key("kept").BeginArray();
  for (const auto& [b, e] : KeptRanges(kept)) {
    w.BeginArray().Int(static_cast<int64_t>(b)).Int(static_cast<int64_t>(e)).EndArray();
  }
  w.EndArray();
  w.EndObject();
}

void WriteRankSteps(JsonWriter& w, const analysis::RankAnalysis& ra, const RankRows* rows) {
  fields::WriteObject(w, ra.steps, {ra.rank, rows, &ra});
}

void WriteDevice(JsonWriter& w, int rank, const analysis::DeviceBreakdown& d) {
  fields::WriteObject(w, d, {rank});
}

void WriteRankLaunch(JsonWriter& w, const analysis::RankAnalysis& ra) {
  fields::WriteObject(w, ra.launch, {ra.rank});
}

std::string ReportToJson(const Report& r) {
  std::vector<RankRows> rows;
  rows.reserve(r.ranks.size());
  for (const auto& ra : r.ranks) rows.push_back(BoundRank(ra));
  fields::WriteContext ctx;
  ctx.report_rows = &rows;
  JsonWriter w(1);
  w.BeginObject();
  fields::WriteFields(w, r, ctx);  // fields/report_object_fields.h
  w.EndObject();
  std::string out = w.Take();
  out.push_back('\n');
  return out;
}

}  // namespace fastenough::report
