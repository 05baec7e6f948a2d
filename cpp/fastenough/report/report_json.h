// Serialises a Report as fastenough.report/1 JSON (the one place that does).
#pragma once

#include <string>

#include "fastenough/report/json_writer.h"
#include "fastenough/report/report.h"

namespace fastenough::report {

std::string ReportToJson(const Report& report);

// The objects one rank contributes to the report, as the report writes them;
// a rank summary (report/rank_summary_json.h) writes the same objects, so a
// merged report reads them back unchanged.
void WriteFinding(JsonWriter& w, const findings::Finding& f);            // a findings[] entry
void WriteInput(JsonWriter& w, const InputInfo& in);                      // an inputs[] entry
void WriteMeta(JsonWriter& w, const Meta& m);                             // "meta": {...}
void WriteRankSteps(JsonWriter& w, const analysis::RankAnalysis& ra);     // steps.per_rank[]
void WriteDevice(JsonWriter& w, int rank, const analysis::DeviceBreakdown& d);  // devices[]
void WriteRankLaunch(JsonWriter& w, const analysis::RankAnalysis& ra);    // launch.per_rank[]

}  // namespace fastenough::report
