// The blocks `fastenough run` adds to the report (report/run_blocks.h),
// declared like the report's other keys (field.h): report_object_fields.h
// names them after the report's own keys, so the report's one writer writes
// them and the JSON Schema, the docs' tables and the typed Python model follow
// (scripts/gen_report_schema.py). Written, not read back in C++.
#pragma once

#include "fastenough/lint/lint_finding.h"
#include "fastenough/report/fields/field.h"
#include "fastenough/report/json_object_reader.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/run_blocks.h"

namespace fastenough::report::fields {

template <class V>
void Fields(V& v, Of<MeasurementReason>) {
  using T = MeasurementReason;
  v.Field("code", &T::code, Unit::kNone, "what was not measured, or not fully",
          OneOf("no-agent|no-torch|torch-unseen|agent-off|checks-off|checks-stopped|checks-missing|"
                "no-steps|few-steady-steps|steps-drift|no-trace|trace-data-lost|"
                "rank-waited-for-cores"));
  v.Field("level", &T::level, Unit::kNone,
          "blind: nothing of that kind was measured; partial: some was", OneOf("partial|blind"));
  v.Field("text", &T::text, Unit::kNone, "the reason, in words", Attr{.non_empty = true});
}

template <class V>
void Fields(V& v, Of<Measurement>) {
  using T = Measurement;
  v.Name("measurement");
  v.Field("status", &T::status, Unit::kNone,
          "complete: every source ran and saw steady steps; else partial or blind (reasons say "
          "why)",
          OneOf("complete|partial|blind"));
  v.Field("reasons", &T::reasons, Unit::kNone, "why the measurement is not complete");
  v.Field("processes", &T::processes, Unit::kCount,
          "processes in the loop (main or rank) the agent saw");
  v.Field("steady_steps", &T::steady_steps, Unit::kCount, "steady steps, over every rank");
  v.Field("tool_pause_ns", &T::tool_pause_ns, Unit::kNs,
          "the time the tool paused the loop (phase edges), summed", Attr{.least = "0"});
  v.Field("tool_pauses", &T::tool_pauses, Unit::kCount, "the tool's pauses of the loop");
  v.Field("profile_cost_ns", &T::profile_cost_ns, Unit::kNs,
          "what the profiler window cost the loop", Attr{.least = "0"});
  v.Field("profile_peak_rss_rise_bytes", &T::profile_peak_rss_rise, Unit::kBytes,
          "the most the profiler window raised a process's peak RSS");
  v.FieldIf("profile_memory_bound_bytes", &T::profile_memory_bound, Unit::kBytes,
            "the agent's memory bound for the process whose window raised the peak RSS most "
            "(+5% of its RSS or +64 MiB, whichever is larger)",
            [](const T& m) { return m.profile_memory_bound > 0; });
  v.FieldIf("profile_stopped_early", &T::profile_stopped_early, Unit::kNone,
            "why the first process's profiler window ended early",
            [](const T& m) { return !m.profile_stopped_early.empty(); });
  v.FieldIf("profile_mode", &T::profile_mode, Unit::kNone,
            "the mode of the steps the profiler window covers",
            [](const T& m) { return !m.profile_mode.empty(); });
  v.FieldIf("profile_moved", &T::profile_moved, Unit::kNone,
            "why the window ran again on other steps (its trace replaced the first)",
            [](const T& m) { return !m.profile_moved.empty(); });
  v.FieldIf("profile_not_moved", &T::profile_not_moved, Unit::kNone,
            "why the window did not run again on other steps (fastenough's memory bound)",
            [](const T& m) { return !m.profile_not_moved.empty(); });
}

inline constexpr Attr kModeOrNull = OneOf("train|eval", Null::kEmpty);

template <class V>
void Fields(V& v, Of<RunPhaseDetail>) {
  using T = RunPhaseDetail;
  v.Field("name", &T::name, Unit::kNone, "the phase (as report.phases names it)");
  v.Field("rank", &T::rank, Unit::kId, "the rank");
  v.Field("pid", &T::pid, Unit::kId, "the process");
  v.Field("instances", &T::instances, Unit::kCount, "the phase's instances this row stands for",
          Attr{.since_later = true, .least = "1"});
  v.Field("mode", &T::mode, Unit::kNone, "the mode of its begin edge; null from older agents",
          kModeOrNull);
  v.Field("auto", &T::automatic, Unit::kNone, "whether the tool found the phase itself");
  v.Field("complete", &T::complete, Unit::kNone, "false: no end edge (the process died in it)");
  v.Field("busy_source", &T::busy_source, Unit::kNone,
          "where its device busy share comes from (trace, or util: the sampled utilisation)",
          kNullIfEmpty);
  v.Field("cpu_mean_pct", &T::cpu_mean_pct, Unit::kPercent,
          "the process tree's mean CPU use over the phase");
  v.Field("rss_max", &T::rss_max, Unit::kBytes, "the process tree's largest RSS sampled",
          kNullIfNegative);
  v.Field("mem_total", &T::mem_total, Unit::kBytes, "the device's memory", kNullIfNegative);
  v.Field("device_samples", &T::device_samples, Unit::kCount, "device samples inside the phase");
}

template <class V>
void Fields(V& v, Of<RunStepsOfRank>) {
  using T = RunStepsOfRank;
  const auto steady = [](const T& s) { return s.steady_count > 0; };
  v.Field("rank", &T::rank, Unit::kId, "the rank");
  v.Field("steps", &T::steps, Unit::kCount,
          "every step of the rank and mode, warm-up and profile included");
  v.Field("steady_count", &T::steady_count, Unit::kCount, "its steady steps");
  v.Field("mode", &T::mode, Unit::kNone, "the mode; null from older run directories",
          kModeOrNull);
  v.FieldIf("median_ns", &T::median_ns, Unit::kNs, "the steady steps' median (with steady steps)",
            steady);
  v.FieldIf("p10_ns", &T::p10_ns, Unit::kNs, "their 10th percentile", steady);
  v.FieldIf("p90_ns", &T::p90_ns, Unit::kNs, "their 90th percentile", steady);
  v.FieldIf("span_ns", &T::span_ns, Unit::kNs, "first steady start to last steady end", steady);
  v.FieldIf("steady_ns", &T::steady_ns, Unit::kNs, "the steady steps' own time, summed", steady);
  v.Field("steps_per_s", &T::steps_per_s, Unit::kPerSecond, "steady steps per second");
  v.Field("items_per_s", &T::items_per_s, Unit::kPerSecond, "items per second (steady)");
  v.Field("tokens_per_s", &T::tokens_per_s, Unit::kPerSecond, "tokens per second (steady)");
  v.Field("source", &T::source, Unit::kNone,
          "the agent's step source (explicit, optimizer, dataloader, module)");
}

template <class V>
void Fields(V& v, Of<RunStepsOfMode>) {
  using T = RunStepsOfMode;
  v.Field("mode", &T::mode, Unit::kNone, "the mode; null from older run directories",
          kModeOrNull);
  v.Field("ranks", &T::ranks, Unit::kCount, "the ranks with steady steps in it");
  v.Field("steady_count", &T::steady_count, Unit::kCount, "steady steps, over every rank");
  v.Field("median_ns", &T::median_ns, Unit::kNs, "the steady steps' median, over every rank");
  v.Field("p10_ns", &T::p10_ns, Unit::kNs, "their 10th percentile");
  v.Field("p90_ns", &T::p90_ns, Unit::kNs, "their 90th percentile");
  v.Field("steps_per_s", &T::steps_per_s, Unit::kPerSecond,
          "steady steps per second of its lowest rank (ranks step together)");
  v.Field("items_per_s", &T::items_per_s, Unit::kPerSecond, "items per second, summed over ranks");
  v.Field("tokens_per_s", &T::tokens_per_s, Unit::kPerSecond,
          "tokens per second, summed over ranks");
  v.Field("real_tokens_per_s", &T::real_tokens_per_s, Unit::kPerSecond,
          "tokens that are not padding per second (the checks' padding sample)");
}

template <class V>
void Fields(V& v, Of<InJobChoice>) {
  using T = InJobChoice;
  v.Field("used", &T::used, Unit::kNone,
          "whether the report was merged from the ranks' own summaries");
  v.Field("ranks", &T::ranks, Unit::kId, "the ranks that sent a summary");
  v.Field("missing_ranks", &T::missing_ranks, Unit::kId, "the ranks that sent none");
  v.Field("why_missing", &T::why_missing, Unit::kNone,
          "why each is missing, by rank (or trace name)", Attr{}, View<AsMap>{});
  v.FieldIf("note", &T::note, Unit::kNone, "why the traces were read instead",
            [](const T& c) { return !c.note.empty(); });
}

template <class V>
void Fields(V& v, Of<RunDetails>) {
  using T = RunDetails;
  v.Name("run_details");
  v.Field("phases", &T::phases, Unit::kNone, "report.phases' rows, with the run's own details");
  v.Field("steps_per_rank", &T::steps_per_rank, Unit::kNone, "per rank and mode: its steps");
  v.Field("steps_by_mode", &T::steps_by_mode, Unit::kNone, "per mode: its steps over every rank");
  v.Field("traces", &T::traces, Unit::kNone, "the trace files analysed (or summarised)");
  v.Field("problems", &T::problems, Unit::kNone,
          "what could not be read in the run directory, in words");
  v.FieldIf("in_job", &T::in_job, Unit::kNone,
            "fastenough run --analyze-in-job only: whether the report was merged from the "
            "ranks' own summaries (rank-summaries/) and which ranks sent none, with why",
            [](const T& d) { return d.in_job.has_value(); });
}

template <class V>
void Fields(V& v, Of<EarlierRun>) {
  using T = EarlierRun;
  v.Field("id", &T::id, Unit::kId, "its id in the history");
  v.Field("run_dir", &T::run_dir, Unit::kNone, "its run directory");
  v.Field("started_at", &T::started_at, Unit::kNone, "when it started, as the history says");
}

template <class V>
void Fields(V& v, Of<Spread>) {
  using T = Spread;
  v.Name("repeat_spread");
  v.Field("min", &T::min, Unit::kNone, "the least, over the runs", Attr{.least = "0"});
  v.Field("max", &T::max, Unit::kNone, "the most, over the runs", Attr{.least = "0"});
  v.Field("runs", &T::runs, Unit::kCount, "the runs whose saving has the figure",
          Attr{.least = "1"});
}

struct StableFinding;  // views of RepeatedFinding: stable[] and varied[]
struct VariedFinding;

template <class V>
void RepeatedKey(V& v) {
  using T = RepeatedFinding;
  v.Field("code", &T::code, Unit::kNone, "the finding's code");
  v.FieldIf("rank", &T::rank, Unit::kId, "its rank, in a job of several",
            [](const T& f) { return f.rank >= 0; }, Attr{.least = "0"});
  v.Field("verdict", &T::verdict, Unit::kNone, "this run's, or the newest run's that had it");
}

template <class V>
void Fields(V& v, Of<RepeatedFinding, StableFinding>) {
  using T = RepeatedFinding;
  RepeatedKey(v);
  v.FieldIf("per_step_ns", &T::per_step_ns, Unit::kNone, "its saving per step, over the runs",
            [](const T& f) { return f.per_step_ns.has_value(); });
  v.FieldIf("share_of_step", &T::share_of_step, Unit::kNone,
            "its saving's share of a step, over the runs",
            [](const T& f) { return f.share_of_step.has_value(); });
}

template <class V>
void Fields(V& v, Of<RepeatedFinding, VariedFinding>) {
  using T = RepeatedFinding;
  RepeatedKey(v);
  v.Field("runs", &T::runs, Unit::kCount, "the runs that had it", Attr{.least = "1"});
  v.Field("in_this_run", &T::in_this_run, Unit::kNone, "whether this run had it");
}

template <class V>
void Fields(V& v, Of<Repeatability>) {
  using T = Repeatability;
  v.Field("runs", &T::runs, Unit::kCount, "this run and the earlier ones", Attr{.least = "2"});
  v.Field("earlier", &T::earlier, Unit::kNone, "the earlier runs compared, newest first");
  v.Field("stable", &T::stable, Unit::kNone,
          "in every run; the spreads are over the runs whose saving has the figure", Attr{},
          View<StableFinding>{});
  v.Field("varied", &T::varied, Unit::kNone, "in some of the runs only", Attr{},
          View<VariedFinding>{});
}

template <class V>
void Fields(V& v, Of<lint::LintFinding>) {
  using T = lint::LintFinding;
  v.Field("file", &T::path, Unit::kNone, "the file");
  v.Field("line", &T::line, Unit::kNone, "its line (1-based)", Attr{.least = "1"});
  v.Field("col", &T::col, Unit::kNone, "its column (1-based, in characters)", Attr{.least = "0"});
  v.Field("code", &T::code, Unit::kNone, "the finding's code (shared with the runtime's)");
  v.Field("rule", &T::rule, Unit::kNone, "the rule within the code that matched");
  v.Field("message", &T::message, Unit::kNone, "what it says");
}

template <class V>
void Fields(V& v, Of<lint::FileError>) {
  using T = lint::FileError;
  v.Field("path", &T::path, Unit::kNone, "the file");
  v.Field("line", &T::line, Unit::kNone, "its line; 0 when the problem has none",
          Attr{.least = "0"});
  v.Field("message", &T::message, Unit::kNone, "what went wrong");
}

template <class V>
void Fields(V& v, Of<LintCrossReference>) {
  using T = LintCrossReference;
  v.Field("files", &T::files, Unit::kNone, "the files linted (resolved, sorted)");
  v.Field("confirmed", &T::confirmed, Unit::kCount,
          "lint findings a runtime finding matched (also_in_source)");
  v.Field("unconfirmed", &T::unconfirmed, Unit::kNone,
          "lint findings no runtime finding confirmed: listed apart, never ranked");
  v.Field("errors", &T::errors, Unit::kNone, "files that could not be linted");
}

}  // namespace fastenough::report::fields
