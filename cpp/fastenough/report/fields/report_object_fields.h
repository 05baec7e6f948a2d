// The report's own object, fastenough.report/1 (field.h): its top-level keys
// in the order ReportToJson writes them, the blocks `fastenough run` adds
// (measurement, run_details, lint, repeatability: run_fields.h) last. The
// report is written, never read back in C++:
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
#include "fastenough/report/fields/roofline_fields.h"
#include "fastenough/report/fields/run_fields.h"
#include "fastenough/report/fields/turns_fields.h"
#include "fastenough/report/json_object_reader.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/report.h"
#include "fastenough/report/report_json.h"

namespace fastenough::report::fields {

template <class V>
void Fields(V& v, Of<DevicesOmittedRow>) {
  using T = DevicesOmittedRow;
  v.Field("rank", &T::rank, Unit::kId, "the rank");
  v.Field("count", &T::count, Unit::kCount, "its devices not listed", Attr{.least = "1"});
  v.Field("busy_ns", &T::busy_ns, Unit::kNs, "their busy time, summed", Attr{.least = "0"});
  v.Field("kernel_count", &T::kernel_count, Unit::kCount, "their kernels, summed");
}

// A launch count summed over the ranks.
inline int64_t SumOverRanks(const Report& r, int64_t analysis::LaunchStats::*count) {
  int64_t n = 0;
  for (const auto& ra : r.ranks) n += ra.launch.*count;
  return n;
}

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
      "only when a rank has more than 256 devices: per such rank, the devices that devices, "
      "efficiency.devices and memory do not list (each lists the rank's 256 busiest), summed",
      [](const T& r, const C& c) { return !DevicesOmitted(r, *c.report_rows).empty(); },
      [](JsonWriter& w, const T& r, const C& c) {
        w.BeginArray();
        for (const auto& row : DevicesOmitted(r, *c.report_rows)) WriteObject(w, row);
        w.EndArray();
      },
      none);
  v.Field("top_kernels", &T::top_kernels, Unit::kNone, "the heaviest kernels, over every rank",
          Attr{}, View<TopKernels>{});
  v.Field("top_ops", &T::top_ops, Unit::kNone, "the heaviest CPU ops by inclusive time");
  v.Field("top_ops_by_self", &T::top_ops_self, Unit::kNone, "the heaviest CPU ops by self time");
  v.Group("launch", "kernel launches: the ranks' counts summed, and each rank's", [&](auto& g) {
    using L = analysis::LaunchStats;
    g.Derived("kernel_count", [](const T& r) { return SumOverRanks(r, &L::kernel_count); },
              Unit::kCount, "kernels, over every rank");
    g.Derived("launched_count", [](const T& r) { return SumOverRanks(r, &L::launched_count); },
              Unit::kCount, "kernels linked to their launch call, over every rank");
    g.Derived("short_kernel_count",
              [](const T& r) { return SumOverRanks(r, &L::short_kernel_count); }, Unit::kCount,
              "kernels shorter than their launch call, over every rank");
    g.Custom(
        "per_rank", "array of objects", Unit::kNone, "each rank's launch figures",
        [](JsonWriter& w, const T& r, const C&) { WriteLaunchRanks(w, r); }, none);
  });
  v.Group(
      "step_breakdown", "per step, where the time went",
      [&](auto& g) {
        g.Derived("categories", [](const T&) { return StepCategories(); }, Unit::kNone,
                  "the categories, in the order of the <category>_ns keys",
                  OneOf("kernel|memcpy|memset|communication|runtime|dataloader|cpu_exec|other"));
        g.Custom(
            "per_rank", "array of objects", Unit::kNone, "the ranks that have steps",
            [](JsonWriter& w, const T& r, const C& c) {
              WriteStepBreakdownRanks(w, r, *c.report_rows);
            },
            none);
      },
      kLater);
  v.Group(
      "efficiency", "GPU utilisation, SM efficiency, occupancy",
      [&](auto& g) {
        g.Derived("has_launch_args", [](const T& r) { return HasLaunchArgs(r); }, Unit::kNone,
                  "whether any rank's kernels carry their launch arguments (grid, block)");
        g.Custom(
            "devices", "array of objects", Unit::kNone, "per rank and listed device",
            [](JsonWriter& w, const T& r, const C& c) {
              WriteEfficiencyDevices(w, r, *c.report_rows);
            },
            none);
        g.Custom(
            "kernels", "array of objects", Unit::kNone,
            "the heaviest kernels of every rank and device together (10)",
            [](JsonWriter& w, const T& r, const C&) { WriteEfficiencyKernels(w, r); }, none);
      },
      kLater);
  v.Custom(
      "memory", "array of objects", Unit::kNone, "the allocator's memory timeline per device",
      [](JsonWriter& w, const T& r, const C& c) { WriteMemoryValue(w, r, *c.report_rows); },
      none, kLater);
  v.Group(
      "critical_path", "the critical path of each rank, and of the job",
      [&](auto& g) {
        g.Custom(
            "per_rank", "array of objects", Unit::kNone, "the ranks that have one",
            [](JsonWriter& w, const T& r, const C&) { WriteCriticalPathRanks(w, r); }, none);
        g.Object(
            "job", &T::job_critical_path,
            "the job's critical path across ranks, linked by the collectives matched on every "
            "rank (analysis/job_critical_path.h); null for one rank",
            [](const analysis::JobCriticalPath& p) { return p.status != "one-rank"; });
      },
      kLater);
  v.Group(
      "graphs", "CUDA/HIP graph replays and torch.compile regions",
      [&](auto& g) {
        g.Custom(
            "per_rank", "array of objects", Unit::kNone, "the ranks that have any",
            [](JsonWriter& w, const T& r, const C&) { WriteGraphsRanks(w, r); }, none);
      },
      kLater);
  v.Group(
      "device_turns", "several devices of one process, or the ranks of a job, taking turns",
      [&](auto& g) {
        g.Custom(
            "per_rank", "array of objects", Unit::kNone, "the ranks whose devices were measured",
            [](JsonWriter& w, const T& r, const C& c) {
              WriteDeviceTurnsRanks(w, r, *c.report_rows);
            },
            none);
        g.Object(
            "job", &T::rank_turns,
            "the ranks' own steady work compared (a pipeline's stages taking turns); null with "
            "fewer than two ranks at work (findings/rank_turns.cc)",
            [](const analysis::DeviceTurns& t) { return t.measured(); }, View<TurnsOfJob>{});
      },
      kLater);
  v.Field("shapes", &T::shapes, Unit::kNone, "input shapes of the hottest ops",
          Attr{.compact = true}, View<ShapeRowInReport>{});
  v.Group(
      "roofline", "per rank, how close its hot ops ran to the device's roofs (docs/roofline.md)",
      [&](auto& g) {
        g.Field("per_rank", &T::roofline, Unit::kNone, "each rank's, in input order");
        g.Field("worst_rank_per_op", &T::roofline_worst, Unit::kNone,
                "each (op, Input Dims, Input type) that two or more ranks ran with a bound: "
                "the rank furthest below its binding roof and the one closest, heaviest "
                "(summed device time) first, at most 20; [] with one rank",
                Attr{.since_later = true});
      },
      kLater);
  v.Field("findings", &T::findings, Unit::kNone, "the findings, ranked");
  v.Field("avoidable", &T::avoidable, Unit::kNone,
          "per rank, what its avoidable findings save together, overlapping ones once", kLater);
  v.Reserved("decision", "reserved for a decision of the report itself; null");
  // fastenough run only (rundir/run_report.cc fills them; run_fields.h).
  v.FieldIf("measurement", &T::measurement, Unit::kNone,
            "fastenough run only: what the run's measurement saw, and what it did not "
            "(rundir/measurement.h)",
            [](const T& r) { return r.measurement.has_value(); });
  v.FieldIf("run_details", &T::run_details, Unit::kNone,
            "fastenough run only: the run directory's phases, steps per rank and mode, traces "
            "and problems",
            [](const T& r) { return r.run_details.has_value(); });
  v.FieldIf("lint", &T::lint, Unit::kNone,
            "fastenough run only, when it linted the files its findings point at "
            "(cpp/fastenough/rundir/lint_cross_reference.h): lint findings no runtime finding "
            "confirmed, listed apart and never ranked",
            [](const T& r) { return r.lint.has_value(); });
  v.FieldIf("repeatability", &T::repeatability, Unit::kNone,
            "fastenough run only, when the history (.fastenough/runs.db of the working "
            "directory) holds earlier runs of the same command that ended the same way "
            "(python/fastenough/store/repeatability.py): the findings present in every run, "
            "with the spread of their savings, and those that came and went; a finding is its "
            "code (and rank)",
            [](const T& r) { return r.repeatability.has_value(); });
}

}  // namespace fastenough::report::fields
