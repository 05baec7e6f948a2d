// The declared fields (field.h) as data, for the documents the declarations
// cover (describe.h): what cpp/tools/describe_fields prints for the JSON
// Schema, docs/report-schema.md's tables and a typed model to be generated from.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fastenough/report/fields/describe.h"
#include "fastenough/util/status.h"

namespace fastenough::report::fields {

// Every key of fastenough.rank-summary/1, from "$".
std::vector<FieldInfo> DescribeRankSummary();
// The keys of fastenough.report/1 that the declarations cover so far: the
// objects one rank contributes (inputs[], meta, steps.per_rank[], devices[],
// launch.per_rank[], top_kernels[], top_ops[], top_ops_by_self[],
// step_breakdown.per_rank[], efficiency.devices[] and .kernels[], memory[],
// critical_path.per_rank[], graphs.per_rank[], device_turns.per_rank[]) and
// the job's (steps, run, critical_path.job, device_turns.job, counters[],
// phases[], avoidable[], findings[]).
std::vector<FieldInfo> DescribeReport();

// The rows of `document` ("report" or "rank-summary") as one JSON array of
// {path, type, unit, nullable, kind, meaning} (cpp/tools/describe_fields,
// _core.describe_fields); InvalidArgument for another name.
StatusOr<std::string> DescribeFieldsJson(std::string_view document);

}  // namespace fastenough::report::fields
