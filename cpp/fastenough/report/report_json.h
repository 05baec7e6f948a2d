// Serialises a Report as fastenough.report/1 JSON (the one place that does).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fastenough/report/json_writer.h"
#include "fastenough/report/report.h"
#include "fastenough/report/row_bound.h"
#include "fastenough/util/status.h"

namespace fastenough::report {

// The whole document, a run's blocks included (report.measurement, ...:
// fields/run_fields.h): the one writer of the report.
std::string ReportToJson(const Report& report);

// sweep_batch.json's text read through its declaration (BatchSweep,
// fields/rank_fields.h); an InvalidArgument naming the first missing or
// mistyped key ("$.points[1].size: ...") otherwise.
StatusOr<BatchSweep> BatchSweepFromJson(std::string_view text);

// meta.json's text read through its declaration (MetaRecord,
// fields/meta_record_fields.h): the keys it has, each of its declared type;
// an InvalidArgument naming the first mistyped key ("$.git.dirty: ...").
StatusOr<MetaRecord> MetaRecordFromJson(std::string_view text);

// An agent's record (agent/<pid>.json) read through its declaration
// (MetaAgent, fields/meta_agent_fields.h); an InvalidArgument naming the first
// mistyped key ("$.cpu.cores: ...") otherwise.
StatusOr<MetaAgent> MetaAgentFromJson(std::string_view text);

// Shape census rows (analysis/shapes.h) as the report writes its "shapes"
// rows (ShapeRowInReport, fields/rank_fields.h): a compact JSON array
// (`fastenough replay` reads it).
std::string ShapeRowsToJson(const std::vector<analysis::ShapeRow>& rows);

// The objects one rank contributes to the report, as the report writes them;
// a rank summary (report/rank_summary_json.h) writes the same objects, so a
// merged report reads them back unchanged.
void WriteFinding(JsonWriter& w, const findings::Finding& f);            // a findings[] entry
void WriteInput(JsonWriter& w, const InputInfo& in);                      // an inputs[] entry
void WriteMeta(JsonWriter& w, const Meta& m);                             // "meta": {...}
// rows: what the report lists of the rank (row_bound.h); null: every row.
void WriteRankSteps(JsonWriter& w, const analysis::RankAnalysis& ra,
                    const RankRows* rows = nullptr);  // steps.per_rank[]
void WriteDevice(JsonWriter& w, int rank, const analysis::DeviceBreakdown& d);  // devices[]
void WriteRankLaunch(JsonWriter& w, const analysis::RankAnalysis& ra);    // launch.per_rank[]

// The kept rows of a per-step list of n rows (the rows' indices below n; all
// of them without `rows`), and, when some are left out, its "omitted":
// {count, kept: [[begin, end], ...]} (index ranges of the kept rows among the n).
// The values of the report's top-level keys its declaration
// (fields/report_object_fields.h) writes by code; rows: each rank's listed rows.
void WriteStepsValue(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows);
void WriteDevicesValue(JsonWriter& w, const Report& r, const std::vector<RankRows>& rows);
// A rank of more than kReportDeviceRows devices: the devices it does not
// list, summed (devices_omitted[]).
struct DevicesOmittedRow {
  int rank = 0;
  int64_t count = 0;
  int64_t busy_ns = 0;
  int64_t kernel_count = 0;
};
std::vector<DevicesOmittedRow> DevicesOmitted(const Report& r, const std::vector<RankRows>& rows);
void WriteLaunchRanks(JsonWriter& w, const Report& r);  // launch.per_rank

std::vector<size_t> KeptStepRows(const RankRows* rows, size_t n);
void WriteOmitted(JsonWriter& w, const std::vector<size_t>& kept, size_t n);

}  // namespace fastenough::report
