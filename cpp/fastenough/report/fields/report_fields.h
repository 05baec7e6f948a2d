// The declared fields (field.h) of the report's job-wide objects: steps
// (less per_rank), run, phases[], counters[], avoidable[] and critical_path.job (report_json.cc,
// depth_json.cc write them through json_fields.h).
#pragma once

#include "fastenough/analysis/job_critical_path.h"
#include "fastenough/findings/overlaps.h"
#include "fastenough/report/fields/field.h"
#include "fastenough/report/json_object_reader.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/report.h"

namespace fastenough::report::fields {

// The report's `steps` less its per_rank[] (steps.per_rank[]: StepStats).
template <class V>
void Fields(V& v, Of<StepsSummary>) {
  v.Name("steps");
  using T = StepsSummary;
  using D = analysis::Distribution;
  v.Field("count", Path(&T::duration, &D::count), Unit::kCount, "steps, over every rank");
  v.Field("median_ns", Path(&T::duration, &D::median), Unit::kNs, "step time, median (null: no steps)");
  v.Field("p10_ns", Path(&T::duration, &D::p10), Unit::kNs, "step time, 10th percentile");
  v.Field("p90_ns", Path(&T::duration, &D::p90), Unit::kNs, "step time, 90th percentile");
  v.Field("steady_count", Path(&T::steady_duration, &D::count), Unit::kCount,
          "steady steps, over every rank");
  v.Field("steady_median_ns", Path(&T::steady_duration, &D::median), Unit::kNs,
          "steady step time, median: the step reference of every saving");
  v.Field("steady_p10_ns", Path(&T::steady_duration, &D::p10), Unit::kNs,
          "steady step time, 10th percentile");
  v.Field("steady_p90_ns", Path(&T::steady_duration, &D::p90), Unit::kNs,
          "steady step time, 90th percentile");
  v.Field("steady_steps_per_s", &T::steady_steps_per_s, Unit::kPerSecond, "1 / steady median; null unknown");
  v.Field("items_per_s", &T::items_per_s, Unit::kPerSecond, "samples per second; null unknown");
  v.Field("tokens_per_s", &T::tokens_per_s, Unit::kPerSecond, "tokens per second; null unknown");
  v.Field("real_tokens_per_s", &T::real_tokens_per_s, Unit::kPerSecond,
          "tokens per second without padding (run only); null unknown");
  v.Field("mode", &T::mode, Unit::kNone, "train | eval, what these figures are of (run only); null",
          kNullIfEmpty);
}

// The `fastenough run` block.
template <class V>
void Fields(V& v, Of<RunInfo>) {
  v.Name("run");
  using T = RunInfo;
  v.Field("command", &T::command, Unit::kNone, "the command run, as given");
  v.Field("exit_status", &T::exit_status, Unit::kNone, "its exit status; null killed or unknown",
          Attr{.null = Null::kNegative, .least = "0"});
  v.Field("signal", &T::signal, Unit::kNone, "the signal that ended it; null none",
          Attr{.null = Null::kZero, .least = "1"});
  v.Field("wall_ns", &T::wall_ns, Unit::kNs, "its wall time; null unknown", kNullIfNegative);
  v.Field("run_dir", &T::run_dir, Unit::kNone, "the run directory");
  v.Field("missing", &T::missing, Unit::kNone, "expected run-dir files that were not there");
}

template <class V>
void Fields(V& v, Of<PhaseRow>) {
  v.Name("phase");
  using T = PhaseRow;
  v.Field("name", &T::name, Unit::kNone, "load, compile, warmup, steady, ...");
  v.Field("mode", &T::mode, Unit::kNone, "train | eval; null unknown",
          Attr{Null::kEmpty, false, /*since_later=*/true, "train|eval"});
  v.Field("rank", &T::rank, Unit::kId, "the rank of the phase", Attr{.least = "0"});
  v.Field("start_ns", &T::start_ns, Unit::kNs, "its start, wall clock");
  v.Field("end_ns", &T::end_ns, Unit::kNs, "its end, wall clock");
  v.Field("host_ns", &T::host_ns, Unit::kNs, "host (CPU) time in the phase; null absent",
          kNullIfNegative);
  v.Field("device_busy_share", &T::device_busy_share, Unit::kShare,
          "the device's busy share in the phase; null absent");
  v.Field("util_mean", &T::util_mean, Unit::kPercent, "sampled device utilisation, mean");
  v.Field("power_mean_w", &T::power_mean_w, Unit::kWatts, "sampled device power, mean");
  v.Field("mem_used_max", &T::mem_used_max, Unit::kBytes, "device memory used at most (sampler)",
          kNullIfNegative);
  v.Field("alloc_peak", &T::alloc_peak, Unit::kBytes, "torch allocator peak", kNullIfNegative);
  v.Field("reserved_peak", &T::reserved_peak, Unit::kBytes, "torch reserved peak", kNullIfNegative);
}

struct CountOfInput;  // a view of (path, count): counters[].per_input[]

template <class V>
void Fields(V& v, Of<CounterRow>) {
  v.Name("counter");
  using T = CounterRow;
  v.Field("name", &T::name, Unit::kNone, "the counter's name (trace/counters.h)");
  v.Field("severity", &T::severity, Unit::kNone, "info | data-loss | error",
          OneOf("info|data-loss|error"));
  v.Field("count", &T::count, Unit::kCount, "over every input", Attr{.least = "1"});
  v.Field("description", &T::description, Unit::kNone, "what it counts");
  v.Field("per_input", &T::per_input, Unit::kNone, "the inputs where it is not 0", Attr{},
          View<CountOfInput>{});
}

// A counter's count in one input (CounterRow::per_input's (path, count) pairs).
template <class V>
void Fields(V& v, Of<std::pair<std::string, uint64_t>, CountOfInput>) {
  using T = std::pair<std::string, uint64_t>;
  v.Field("path", &T::first, Unit::kNone, "the input");
  v.Field("count", &T::second, Unit::kCount, "the counter in it", Attr{.least = "1"});
}

template <class V>
void Fields(V& v, Of<findings::AvoidableTotal>) {
  using T = findings::AvoidableTotal;
  v.Field("rank", &T::rank, Unit::kId, "the rank");
  v.Field("share_of_step", &T::share_of_step, Unit::kShare,
          "what its avoidable findings save together, overlapping ones once (at most a step)",
          Attr{.most = "1"});
  v.Field("per_step_ns", &T::per_step_ns, Unit::kNs, "likewise per step, where known");
  v.Field("findings", &T::findings, Unit::kCount, "avoidable findings with a saving",
          Attr{.least = "1"});
  v.Field("groups", &T::groups, Unit::kCount, "of which groups of overlapping findings");
}

template <class V>
void Fields(V& v, Of<analysis::JobPathRank>) {
  using T = analysis::JobPathRank;
  v.Field("rank", &T::rank, Unit::kId, "the rank");
  v.Field("gating_ns", &T::gating_ns, Unit::kNs, "its work before collectives it arrived last at");
  v.Field("gating_collectives", &T::gating_collectives, Unit::kCount, "collectives it arrived last at");
  v.Field("waited_ns", &T::waited_ns, Unit::kNs, "its time in collectives before the last arrival");
}

template <class V>
void Fields(V& v, Of<analysis::JobPathItem>) {
  using T = analysis::JobPathItem;
  v.Field("collective", &T::collective, Unit::kNone, "the collective's name");
  v.Field("rank", &T::rank, Unit::kId, "the rank whose work gated it");
  v.Field("ns", &T::ns, Unit::kNs, "that work, summed");
  v.Field("count", &T::count, Unit::kCount, "times", Attr{.least = "1"});
}

template <class V>
void Fields(V& v, Of<analysis::JobCriticalPath>) {
  using T = analysis::JobCriticalPath;
  v.Field("status", &T::status, Unit::kNone, "ok | no-collectives", OneOf("ok|no-collectives"));
  v.Field("ranks", &T::ranks, Unit::kCount, "ranks linked", Attr{.least = "2"});
  v.Field("collectives", &T::collectives, Unit::kCount, "collectives matched on every rank");
  v.Field("window_start_ns", &T::window_start_ns, Unit::kNs, "the first collective's last arrival");
  v.Field("window_end_ns", &T::window_end_ns, Unit::kNs, "the last collective's end");
  v.Field("length_ns", &T::length_ns, Unit::kNs, "work_ns + transfer_ns");
  v.Field("work_ns", &T::work_ns, Unit::kNs, "the gating ranks' work on the path");
  v.Field("transfer_ns", &T::transfer_ns, Unit::kNs, "collectives' time on the path");
  v.Field("per_rank", &T::per_rank, Unit::kNone, "in input order");
  v.Field("top", &T::top, Unit::kNone, "the heaviest gating work, by collective and rank");
}

}  // namespace fastenough::report::fields
