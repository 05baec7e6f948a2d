// The declared fields (field.h) of fastenough.rank-summary/1: a RankSummary
// (rank_summary.h) as one JSON object, key by key (docs/rank-summary.md).
// RankSummaryToJson writes this declaration and ParseRankSummary reads it
// (rank_summary_json.cc); the rank's objects are those of the report
// (rank_fields.h), so a merged report is the same text.
#pragma once

#include "fastenough/report/fields/field.h"
#include "fastenough/report/fields/finding_fields.h"
#include "fastenough/report/fields/rank_fields.h"
#include "fastenough/report/fields/roofline_fields.h"
#include "fastenough/report/json_object_reader.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/rank_summary.h"
#include "fastenough/report/rank_summary_json.h"

namespace fastenough::report::fields {

// The values the declaration cannot say field by field (rank_summary_json.cc).
void WriteSummaryCounters(JsonWriter& w, const RankSummary& s);
void ReadSummaryCounters(ObjectReader& o, RankSummary& s);
void WriteSummaryDeviceTurns(JsonWriter& w, const RankSummary& s);
void ReadSummaryDeviceTurns(ObjectReader& o, RankSummary& s);
void WriteSteadyWork(JsonWriter& w, const RankSummary& s);
void ReadSteadyWork(ObjectReader& o, RankSummary& s);
void WriteStepWorkItems(JsonWriter& w, const RankSummary& s);
void ReadStepWorkItems(ObjectReader& o, RankSummary& s);
void WriteStepHostWork(JsonWriter& w, const RankSummary& s);
void ReadStepHostWork(ObjectReader& o, RankSummary& s);
void WriteSummaryCollectives(JsonWriter& w, const RankSummary& s);
void ReadSummaryCollectives(ObjectReader& o, RankSummary& s);
void CheckSummary(ObjectReader& o, RankSummary& s);

template <class V>
void Fields(V& v, Of<RankSummary>) {
  using T = RankSummary;
  using A = analysis::RankAnalysis;
  // A custom value: `write` and `read` of the whole summary.
  auto custom = [&v](std::string_view key, std::string_view type, Unit unit,
                     std::string_view meaning, void (*write)(JsonWriter&, const T&),
                     void (*read)(ObjectReader&, T&)) {
    v.Custom(key, type, unit, meaning,
             [write](JsonWriter& w, const T& s, const WriteContext&) { write(w, s); }, read);
  };
  v.Constant("schema", kRankSummarySchema, "the document's kind: fastenough.rank-summary/1");
  v.Constant("tool_version", FASTENOUGH_VERSION, "the fastenough that wrote it");
  v.Field("rank", Path(&T::analysis, &A::rank), Unit::kId, "the rank");
  v.Field("input_index", &T::input_index, Unit::kIndex,
          "its place among the inputs of the analysis (merge order)");
  v.Field("input", &T::input, Unit::kNone, "the trace file, as the report's inputs[]");
  v.Field("meta", &T::meta, Unit::kNone, "its device properties, world size, backend, base time");
  custom("counters", "array of {name, count}", Unit::kCount,
         "its reader's counters that are not 0 (trace/counters.h names them)",
         WriteSummaryCounters, ReadSummaryCounters);
  v.Field("steps", Path(&T::analysis, &A::steps), Unit::kNone, "as the report's steps.per_rank[]");
  v.Field("devices", Path(&T::analysis, &A::devices), Unit::kNone, "as the report's devices[]");
  v.Field("launch", Path(&T::analysis, &A::launch), Unit::kNone, "as the report's launch.per_rank[]");
  v.Field("kernels", Path(&T::analysis, &A::kernels), Unit::kNone, "every kernel name, heaviest first");
  v.Field("ops", Path(&T::analysis, &A::ops), Unit::kNone, "every cpu op name, heaviest first");
  v.Object("step_breakdown", Path(&T::analysis, &A::step_breakdown),
           "as the report's step_breakdown.per_rank[]; null none",
           [](const analysis::StepBreakdown& sb) { return !sb.steps.empty(); });
  v.Field("efficiency", Path(&T::analysis, &A::efficiency), Unit::kNone,
          "as the report's efficiency (devices[], kernels[] of this rank)");
  v.Field("memory", Path(&T::analysis, &A::memory), Unit::kNone, "as the report's memory[]");
  v.Object("critical_path", Path(&T::analysis, &A::critical_path),
           "as the report's critical_path.per_rank[]; null none",
           [](const analysis::CriticalPath& cp) { return cp.window_ns > 0; });
  v.Object(
      "graphs", &T::analysis, "as the report's graphs.per_rank[]; null none",
      [](const A& a) {
        return a.graphs.launch_count != 0 || !a.compiled.regions.empty() ||
               a.compiled.triton_kernel_count != 0;
      },
      View<Graphs>{});
  custom("device_turns", "object or null", Unit::kNone,
         "as the report's device_turns.per_rank[]; null not measured (missing in older summaries)",
         WriteSummaryDeviceTurns, ReadSummaryDeviceTurns);
  custom("steady_work", "array of [start_ns, end_ns]", Unit::kNs,
         "the rank's own work in its steady steps: what the job's rank_turns compares",
         WriteSteadyWork, ReadSteadyWork);
  custom("step_work_items", "array of integers", Unit::kCount,
         "the work items of each step of step_breakdown.steps: what load-imbalance compares "
         "on host-only jobs (missing in older summaries)",
         WriteStepWorkItems, ReadStepWorkItems);
  custom("step_host_work_ns", "array of integers", Unit::kNs,
         "the time the host's own ops ran in each step of step_breakdown.steps, less each "
         "thread's collectives: a CPU rank's work that load-imbalance compares (missing in "
         "older summaries; -1 unknown)",
         WriteStepHostWork, ReadStepHostWork);
  v.Field("shapes", &T::shapes, Unit::kNone, "its shape census; [] when not asked for");
  v.Field("roofline", &T::roofline, Unit::kNone,
          "its hot ops against the device's roofs, as the report's roofline.per_rank[] "
          "(missing in older summaries)",
          Attr{.since_later = true});
  custom("collectives", "array of {name, calls: [[start_ns, end_ns], ...]}", Unit::kNs,
         "its collectives' calls by name, for the cross-rank detectors",
         WriteSummaryCollectives, ReadSummaryCollectives);
  v.Field("findings", &T::findings, Unit::kNone, "the rank's own findings, as the report's");
  v.AfterRead(CheckSummary);
}

}  // namespace fastenough::report::fields
