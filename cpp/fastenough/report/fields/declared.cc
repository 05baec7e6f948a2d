#include "fastenough/report/fields/declared.h"

#include "fastenough/report/fields/describe.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/fields/finding_fields.h"
#include "fastenough/report/fields/rank_fields.h"
#include "fastenough/report/fields/rank_summary_fields.h"
#include "fastenough/report/fields/report_fields.h"
#include "fastenough/report/fields/report_object_fields.h"
#include "fastenough/report/fields/turns_fields.h"

namespace fastenough::report::fields {

std::vector<FieldInfo> DescribeRankSummary() {
  std::vector<FieldInfo> out;
  DescribeFields<RankSummary>("$", out);
  return out;
}

std::vector<FieldInfo> DescribeReport() {
  std::vector<FieldInfo> out;
  DescribeFields<Report>("$", out);  // report_object_fields.h
  // The objects inside the top-level keys the report writes by code (Custom).
  DescribeFields<RunInfo>("$.run", out);
  DescribeFields<StepsSummary>("$.steps", out);
  out.push_back({"$.steps.per_rank", "array of objects", "", false, "field", "each rank's steps",
                 true, "", "", "", "", "", false, ""});
  DescribeFields<analysis::StepStats>("$.steps.per_rank[]", out);
  DescribeFields<analysis::DeviceBreakdown>("$.devices[]", out);
  DescribeFields<DevicesOmittedRow>("$.devices_omitted[]", out);
  DescribeFields<analysis::LaunchStats>("$.launch.per_rank[]", out);
  DescribeFields<analysis::StepBreakdown>("$.step_breakdown.per_rank[]", out);
  DescribeFields<analysis::DeviceEfficiency>("$.efficiency.devices[]", out);
  DescribeFields<analysis::KernelOccupancy>("$.efficiency.kernels[]", out);
  DescribeFields<analysis::MemoryTimeline>("$.memory[]", out);
  DescribeFields<analysis::CriticalPath>("$.critical_path.per_rank[]", out);
  DescribeFields<analysis::RankAnalysis, Graphs>("$.graphs.per_rank[]", out);
  DescribeFields<analysis::DeviceTurns, TurnsOfRank>("$.device_turns.per_rank[]", out);
  // The turns splits' `omitted` (a Custom object of a declared struct).
  DescribeFields<TurnsOmitted>("$.device_turns.per_rank[].omitted", out);
  DescribeFields<TurnsOmitted>("$.device_turns.job.omitted", out);
  return out;
}

StatusOr<std::string> DescribeFieldsJson(std::string_view document) {
  if (document != "report" && document != "rank-summary") {
    return InvalidArgument("no declared document '" + std::string(document) +
                           "' (report, rank-summary)");
  }
  const std::vector<FieldInfo> rows = document == "report" ? DescribeReport() : DescribeRankSummary();
  JsonWriter w(1);
  w.BeginArray();
  for (const FieldInfo& f : rows) {
    w.BeginObject();
    w.Field("path", f.path);
    w.Field("type", f.type);
    w.Field("unit", f.unit);
    w.Field("nullable", f.nullable);
    w.Field("kind", f.kind);
    w.Field("meaning", f.meaning);
    w.Field("required", f.required);
    if (!f.values.empty()) w.Field("values", f.values);
    if (!f.minimum.empty()) w.Field("minimum", f.minimum);
    if (!f.name.empty()) w.Field("name", f.name);
    if (!f.maximum.empty()) w.Field("maximum", f.maximum);
    if (!f.pattern.empty()) w.Field("pattern", f.pattern);
    if (f.non_empty) w.Field("non_empty", true);
    if (!f.min_items.empty()) w.Field("min_items", f.min_items);
    w.EndObject();
  }
  w.EndArray();
  std::string out = w.Take();
  out.push_back('\n');
  return out;
}

}  // namespace fastenough::report::fields
