// The report's own object, fastenough.report/1 (field.h): its top-level keys
// in the order ReportToJson writes them. The keys a run adds after these
// (measurement, run_details, repeatability, lint) come from the caller
// (report_json.h, `more`). The report is written, never read back in C++:
// the Custom entries' readers do nothing.
//
// Custom entries are the keys whose value is assembled from the ranks (each
// rank's listed rows, row_bound.h; sums over ranks): their code is in
// report_json.cc and depth_json.cc; the objects inside them are declared
// (rank_fields.h, report_fields.h, turns_fields.h) and described under their
// paths (declared.cc); the wrappers' own keys are in
// scripts/report_schema_undeclared.json.
#pragma once

#include "fastenough/report/depth_json.h"
#include "fastenough/report/fields/field.h"
#include "fastenough/report/fields/finding_fields.h"
#include "fastenough/report/fields/json_fields.h"
#include "fastenough/report/fields/rank_fields.h"
#include "fastenough/report/fields/report_fields.h"
#include "fastenough/report/json_object_reader.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/report.h"
#include "fastenough/report/report_json.h"

namespace fastenough::report::fields {

template <class V>
void Fields(V& v, Of<Report>) {
  using T = Report;
  using C = WriteContext;
  const auto none = [](ObjectReader&, T&) {};  // not read back in C++
  constexpr Attr kLater{Null::kNever, false, /*since_later=*/true};
  v.Field("schema", &T::schema, Unit::kNone, "the document's kind",
          OneOf("fastenough.report/1"));
  v.Field("tool_version", &T::tool_version, Unit::kNone, "the fastenough version that wrote it");
  v.Field("inputs", &T::inputs, Unit::kNone, "the traces read");
  v.CustomIf(
      "run", "object", Unit::kNone, "the run (fastenough run only)",
      [](const T& r, const C&) { return r.run.has_value(); },
      [](JsonWriter& w, const T& r, const C&) { WriteObject(w, *r.run); }, none);
  v.Field("meta", &T::meta, Unit::kNone, "the reproducibility record");
  v.Field("counters", &T::counters, Unit::kNone, "non-zero trace-reading counters");
  v.Field("phases", &T::phases, Unit::kNone, "one row per phase and rank ([] for traces)");
  v.Custom(
      "steps", "object", Unit::kNone, "the job's steps, over every rank, and each rank's",
      [](JsonWriter& w, const T& r, const C& c) { WriteStepsValue(w, r, *c.report_rows); }, none);
  v.Custom(
      "devices", "array of objects", Unit::kNone, "per rank and device: where device time went",
      [](JsonWriter& w, const T& r, const C& c) { WriteDevicesValue(w, r, *c.report_rows); },
      none);
  v.CustomIf(
      "devices_omitted", "array of objects", Unit::kNone,
      "the devices a rank of more than 256 does not list, summed",
      [](const T&, const C& c) { return AnyDevicesOmitted(*c.report_rows); },
      [](JsonWriter& w, const T& r, const C& c) {
        WriteDevicesOmittedValue(w, r, *c.report_rows);
      },
      none);
  v.Field("top_kernels", &T::top_kernels, Unit::kNone, "the heaviest kernels, over every rank",
          Attr{}, View<TopKernels>{});
  v.Field("top_ops", &T::top_ops, Unit::kNone, "the heaviest CPU ops by inclusive time");
  v.Field("top_ops_by_self", &T::top_ops_self, Unit::kNone, "the heaviest CPU ops by self time");
  v.Custom(
      "launch", "object", Unit::kNone, "kernel launches: the ranks' counts summed, and each rank's",
      [](JsonWriter& w, const T& r, const C&) { WriteLaunchValue(w, r); }, none);
  v.Custom(
      "step_breakdown", "object", Unit::kNone, "per step, where the time went",
      [](JsonWriter& w, const T& r, const C& c) { WriteStepBreakdownValue(w, r, *c.report_rows); },
      none, kLater);
  v.Custom(
      "efficiency", "object", Unit::kNone, "GPU utilisation, SM efficiency, occupancy",
      [](JsonWriter& w, const T& r, const C& c) { WriteEfficiencyValue(w, r, *c.report_rows); },
      none, kLater);
  v.Custom(
      "memory", "array of objects", Unit::kNone, "the allocator's memory timeline per device",
      [](JsonWriter& w, const T& r, const C& c) { WriteMemoryValue(w, r, *c.report_rows); },
      none, kLater);
  v.Custom(
      "critical_path", "object", Unit::kNone, "the critical path of each rank, and of the job",
      [](JsonWriter& w, const T& r, const C&) { WriteCriticalPathValue(w, r); }, none, kLater);
  v.Custom(
      "graphs", "object", Unit::kNone, "CUDA/HIP graph replays and torch.compile regions",
      [](JsonWriter& w, const T& r, const C&) { WriteGraphsValue(w, r); }, none, kLater);
  v.Custom(
      "device_turns", "object", Unit::kNone, "several devices or ranks taking turns",
      [](JsonWriter& w, const T& r, const C& c) { WriteDeviceTurnsValue(w, r, *c.report_rows); },
      none, kLater);
  v.Custom(
      "shapes", "array of objects", Unit::kNone, "input shapes of the hottest ops",
      [](JsonWriter& w, const T& r, const C&) {
        w.BeginArray();
        for (const auto& s : r.shapes) w.Raw(s);  // pre-serialised rows (ShapeRowJson)
        w.EndArray();
      },
      none);
  v.Field("findings", &T::findings, Unit::kNone, "the findings, ranked");
  v.Field("avoidable", &T::avoidable, Unit::kNone,
          "per rank, what its avoidable findings save together, overlapping ones once", kLater);
  v.Custom(
      "decision", "null", Unit::kNone, "reserved for a decision of the report itself; null",
      [](JsonWriter& w, const T&, const C&) { w.Null(); }, none);
}

}  // namespace fastenough::report::fields
