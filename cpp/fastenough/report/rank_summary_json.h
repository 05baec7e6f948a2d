// fastenough.rank-summary/1: a RankSummary (rank_summary.h) as one JSON
// document, field by field in docs/rank-summary.md. `fastenough analyze
// --rank-summaries DIR` writes one per rank and `fastenough merge` reads them
// back into the report analyze gives: the rank's objects are those of the
// report (declared once in fields/rank_fields.h, the whole summary in
// fields/rank_summary_fields.h), so a merged report is the same text.
#pragma once

#include <string>
#include <string_view>

#include "fastenough/report/rank_summary.h"
#include "fastenough/util/status.h"

namespace fastenough::report {

inline constexpr char kRankSummarySchema[] = "fastenough.rank-summary/1";

std::string RankSummaryToJson(const RankSummary& summary);

// The summary a document holds; `source` names it in messages (its path). A
// missing or mistyped field is an InvalidArgument naming it. Not read back:
// the findings' trace marks and claims, the input's annotations (for
// --annotate, which reads the trace itself).
StatusOr<RankSummary> ParseRankSummary(std::string_view json, const std::string& source);

}  // namespace fastenough::report
