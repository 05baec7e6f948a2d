// The declared fields (field.h) of the objects one rank contributes to a
// report, which a rank summary (rank_summary_fields.h) holds as well: every
// key, its member, its unit and its meaning, once. The report's writers
// (report_json.cc, depth_json.cc) and the summary's writer and reader all
// walk these; docs/report-schema.md and docs/rank-summary.md describe the
// same keys in prose.
#pragma once

#include <string>

#include "fastenough/analysis/critical_path.h"
#include "fastenough/analysis/device_breakdown.h"
#include "fastenough/analysis/graph_launches.h"
#include "fastenough/analysis/kernel_efficiency.h"
#include "fastenough/analysis/launch_stats.h"
#include "fastenough/analysis/memory_timeline.h"
#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/analysis/shapes.h"
#include "fastenough/analysis/step_breakdown.h"
#include "fastenough/analysis/steps.h"
#include "fastenough/analysis/top_kernels.h"
#include "fastenough/analysis/top_ops.h"
#include "fastenough/report/fields/field.h"
#include "fastenough/report/fields/meta_agent_fields.h"
#include "fastenough/report/fields/meta_record_fields.h"
#include "fastenough/report/json_object_reader.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/report.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::report::fields {

// Views: a second object the report writes of the same struct.
struct TopKernels {};  // KernelRow in the report's top_kernels (a summary keeps busy_ns)
struct StepRatios {};  // EfficiencyFigures of one step: the ratios only
struct Graphs {};      // RankAnalysis's graphs and compiled regions, one object

template <class V>
void Fields(V& v, Of<InputInfo>) {
  v.Name("input");
  using T = InputInfo;
  v.Field("path", &T::path, Unit::kNone, "the trace file as given");
  v.Field("format", &T::format, Unit::kNone, "kineto | npu-trace-view | legacy-array",
          OneOf("kineto|npu-trace-view|legacy-array"));
  v.Field("bytes", &T::bytes, Unit::kBytes, "its size on disk");
  v.Field("json_bytes", &T::json_bytes, Unit::kBytes, "its JSON text after decompression");
  v.Field("events", &T::events, Unit::kCount, "trace events read");
  v.Field("ranks", &T::ranks, Unit::kId, "the rank(s) the file holds");
}

template <class V>
void Fields(V& v, Of<trace::DeviceProperties>) {
  using T = trace::DeviceProperties;
  v.Field("id", &T::id, Unit::kId, "the device index (deviceProperties id)");
  v.Field("name", &T::name, Unit::kNone, "the device's name");
  v.Field("total_memory_bytes", &T::total_memory_bytes, Unit::kBytes, "its memory (totalGlobalMem)");
  v.Field("compute_major", &T::compute_major, Unit::kNone, "compute capability, major");
  v.Field("compute_minor", &T::compute_minor, Unit::kNone, "compute capability, minor");
  v.Field("num_sms", &T::num_sms, Unit::kCount, "streaming multiprocessors");
}

// meta.batch_sweep: sweep_batch.json as fastenough.sweep_batch writes it
// (python/fastenough/measure/sweep.py), read through this declaration.
template <class V>
void Fields(V& v, Of<BatchSweepPoint>) {
  using T = BatchSweepPoint;
  const auto ran = [](const T& p) { return p.status == "ok"; };
  v.Field("size", &T::size, Unit::kCount, "the batch size tried", Attr{.least = "1"});
  v.Field("status", &T::status, Unit::kNone,
          "ok, or why the size did not run (\"out of memory (OutOfMemoryError)\")");
  v.FieldIf("round_s", &T::round_s, Unit::kNone, "each timed round's seconds (status ok only)",
            ran);
  v.FieldIf("calls_per_round", &T::calls_per_round, Unit::kCount,
            "the step repeated in a round (status ok only)", ran);
  v.FieldIf("median_s", &T::median_s, Unit::kNone,
            "seconds per step, median over the rounds (status ok only)", ran);
  v.FieldIf("items", &T::items, Unit::kCount, "items in a batch (status ok only)", ran);
  v.FieldIf("items_per_s", &T::items_per_s, Unit::kPerSecond,
            "items per second; null unknown (status ok only)", ran);
  v.FieldIf("tokens", &T::tokens, Unit::kCount,
            "tokens in a batch; null not counted (status ok only)", ran, kNullIfNegative);
  v.FieldIf("tokens_per_s", &T::tokens_per_s, Unit::kPerSecond,
            "tokens per second; null not counted (status ok only)", ran);
  v.FieldIf("peak_bytes", &T::peak_bytes, Unit::kBytes,
            "the allocator's peak in the size's rounds; null not measured (the cpu) "
            "(status ok only)",
            ran, kNullIfNegative);
}

template <class V>
void Fields(V& v, Of<BatchSweep>) {
  using T = BatchSweep;
  v.Field("points", &T::points, Unit::kNone, "the sizes tried, in size order");
  v.Field("knee", &T::knee, Unit::kCount,
          "the smallest size within `within` of the best throughput; null no size ran",
          Attr{.null = Null::kNegative, .least = "1"});
  v.Field("best", &T::best, Unit::kCount, "the size of the most items per second; null none",
          Attr{.null = Null::kNegative, .least = "1"});
  v.Field("within", &T::within, Unit::kShare, "the knee's tolerance below the best");
  v.Field("device", &T::device, Unit::kNone, "where the sizes ran (\"cuda:0\", \"cpu\")");
  v.Field("protocol_change", &T::protocol_change, Unit::kNone,
          "batching may change results (batch-dependent semantics)");
  v.Field("semantics", &T::semantics, Unit::kNone, "why batching may change results");
  v.Field("out_of_memory_at", &T::out_of_memory_at, Unit::kCount,
          "the size that ran out of memory (larger ones were not tried); null none",
          Attr{.null = Null::kNegative, .least = "1"});
  v.Field("notes", &T::notes, Unit::kNone, "what the figures do not cover");
  v.Field("warnings", &T::warnings, Unit::kNone,
          "why the figures may not be trusted (noisy rounds, ...); [] in older files",
          Attr{.since_later = true});
}

template <class V>
void Fields(V& v, Of<Meta>) {
  v.Name("meta");
  using T = Meta;
  v.Field("device_properties", &T::device_properties, Unit::kNone,
          "the trace's deviceProperties, one per device");
  v.Field("world_size", &T::world_size, Unit::kCount, "ranks of the job (distributedInfo)",
          Attr{.least = "1"});
  v.Field("backend", &T::backend, Unit::kNone, "the collectives' backend (nccl, gloo, ...); '' none");
  v.Field("base_time_ns", &T::base_time_ns, Unit::kNs,
          "the trace's baseTimeNanoseconds (wall clock of its time 0); null absent", kNullIfNone);
  v.Inline(&T::record);  // meta.json's keys (meta_record_fields.h), as the file had them
  v.FieldIf("agents", &T::agents, Unit::kNone,
            "fastenough run only: each Python process's agent record (agent/<pid>.json), "
            "as its agent wrote it, in the files' name order",
            [](const T& m) { return m.agents.has_value(); }, kOneLine);
  v.FieldIf("batch_sweep", &T::batch_sweep, Unit::kNone,
            "fastenough run only, when the workload called fastenough.sweep_batch "
            "(sweep_batch.json of the run directory): the sizes tried, the knee (the smallest "
            "size within `within` of the best throughput) and the best",
            [](const T& m) { return m.batch_sweep.has_value(); });
}

template <class V>
void Fields(V& v, Of<analysis::IdleBreakdown>) {
  v.Name("idle");
  using T = analysis::IdleBreakdown;
  v.Field("host_wait_ns", &T::host_wait_ns, Unit::kNs, "idle while the host had not launched the next op");
  v.Field("kernel_wait_ns", &T::kernel_wait_ns, Unit::kNs, "idle between ops launched in time");
  v.Field("other_ns", &T::other_ns, Unit::kNs, "idle for any other cause");
}

template <class V>
void Fields(V& v, Of<analysis::StreamIdle>) {
  using T = analysis::StreamIdle;
  v.Field("stream", &T::stream, Unit::kId, "the stream's id");
  v.Field("op_count", &T::op_count, Unit::kCount, "kernels, memcpys and memsets on it");
  v.Field("start_ns", &T::start_ns, Unit::kNs, "its first op's start");
  v.Field("end_ns", &T::end_ns, Unit::kNs, "its last op's end");
  v.Field("busy_ns", &T::busy_ns, Unit::kNs, "the union of its ops");
  v.Field("gap_count", &T::gap_count, Unit::kCount, "its idle gaps");
  v.Inline(&T::idle);  // its gaps summed by cause, in this object
}

template <class V>
void Fields(V& v, Of<analysis::DeviceBreakdown>) {
  v.Name("device");
  using T = analysis::DeviceBreakdown;
  v.Rank("the rank of the device");
  v.Field("device", &T::device, Unit::kId, "the device index");
  v.Field("name", &T::name, Unit::kNone, "from deviceProperties when present");
  v.Field("start_ns", &T::start_ns, Unit::kNs, "its first activity's start");
  v.Field("end_ns", &T::end_ns, Unit::kNs, "its last activity's end");
  v.Field("span_ns", &T::span_ns, Unit::kNs, "end_ns - start_ns");
  v.Field("busy_ns", &T::busy_ns, Unit::kNs, "the union of its activity over every stream");
  v.Field("idle_ns", &T::idle_ns, Unit::kNs, "span_ns - busy_ns: no stream had work");
  v.Field("idle_breakdown", &T::idle_breakdown, Unit::kNone,
          "the gaps of every stream, summed by cause (HTA's definition; can exceed idle_ns)");
  v.Derived("stream_gap_ns", [](const T& d) { return d.idle_breakdown.total_ns(); }, Unit::kNs,
            "idle_breakdown's total");
  v.Field("device_idle", &T::device_idle, Unit::kNone, "idle_ns split by cause; sums to idle_ns");
  v.Field("compute_ns", &T::compute_ns, Unit::kNs, "non-communication kernels");
  v.Field("comm_ns", &T::comm_ns, Unit::kNs, "communication kernels");
  v.Field("memcpy_ns", &T::memcpy_ns, Unit::kNs, "memory copies");
  v.Field("memset_ns", &T::memset_ns, Unit::kNs, "memory sets");
  v.Field("kernel_count", &T::kernel_count, Unit::kCount, "kernels (compute and communication)");
  v.Field("comm_kernel_count", &T::comm_kernel_count, Unit::kCount, "communication kernels");
  v.Field("memcpy_count", &T::memcpy_count, Unit::kCount, "memory copies");
  v.Field("memset_count", &T::memset_count, Unit::kCount, "memory sets");
  v.Field("short_kernel_count", &T::short_kernel_count, Unit::kCount,
          "kernels shorter than their launch call");
  v.Field("streams", &T::streams, Unit::kNone, "its streams, by id");
}

template <class V>
void Fields(V& v, Of<analysis::StepRow>) {
  using T = analysis::StepRow;
  using W = timeline::StepWindow;
  v.Field("number", Path(&T::window, &W::number), Unit::kStep, "N of ProfilerStep#N; -1 not a number");
  v.Field("start_ns", Path(&T::window, &W::start_ns), Unit::kNs, "the step's start");
  v.Field("end_ns", Path(&T::window, &W::end_ns), Unit::kNs, "the step's end");
  v.Derived("dur_ns", [](const T& s) { return s.window.dur_ns(); }, Unit::kNs, "end_ns - start_ns");
  v.Field("device_busy_ns", &T::device_busy_ns, Unit::kNs,
          "the union of every device's activity inside the step");
}

template <class V>
void Fields(V& v, Of<analysis::StepStats>) {
  using T = analysis::StepStats;
  using D = analysis::Distribution;
  v.Rank("the rank of the steps");
  v.Field("count", Path(&T::duration, &D::count), Unit::kCount, "its steps");
  v.Field("steady_begin", &T::steady_begin, Unit::kIndex,
          "the first steady step (the first of three or more is warm-up)");
  v.Field("median_ns", Path(&T::duration, &D::median), Unit::kNs, "step time, median (null: no steps)");
  v.Field("p10_ns", Path(&T::duration, &D::p10), Unit::kNs, "step time, 10th percentile");
  v.Field("p90_ns", Path(&T::duration, &D::p90), Unit::kNs, "step time, 90th percentile");
  v.Field("steady_median_ns", Path(&T::steady_duration, &D::median), Unit::kNs,
          "steady step time, median");
  v.Field("steady_p10_ns", Path(&T::steady_duration, &D::p10), Unit::kNs,
          "steady step time, 10th percentile");
  v.Field("steady_p90_ns", Path(&T::steady_duration, &D::p90), Unit::kNs,
          "steady step time, 90th percentile");
  v.Field("windows", &T::steps, Unit::kNone, "the ProfilerStep windows, in time order", kPerStep);
  v.AfterRead([](ObjectReader& o, T& s) {
    if (s.steady_begin > s.steps.size()) o.Fail("steady_begin", "past the last window");
  });
}

template <class V>
void Fields(V& v, Of<analysis::LaunchStats>) {
  using T = analysis::LaunchStats;
  using D = analysis::Distribution;
  v.Rank("the rank of the launches");
  v.Field("kernel_count", &T::kernel_count, Unit::kCount, "kernels seen");
  v.Field("launched_count", &T::launched_count, Unit::kCount, "kernels with a launch call");
  v.Field("short_kernel_count", &T::short_kernel_count, Unit::kCount,
          "kernels shorter than their launch call");
  v.Field("launch_delay_median_ns", Path(&T::launch_delay, &D::median), Unit::kNs,
          "launch call start to kernel start, median");
  v.Field("launch_delay_p90_ns", Path(&T::launch_delay, &D::p90), Unit::kNs,
          "launch call start to kernel start, 90th percentile");
  v.Field("queue_delay_median_ns", Path(&T::queue_delay, &D::median), Unit::kNs,
          "launch call end to kernel start, median");
  v.Field("queue_delay_p90_ns", Path(&T::queue_delay, &D::p90), Unit::kNs,
          "launch call end to kernel start, 90th percentile");
  v.Field("launch_call_median_ns", Path(&T::launch_call, &D::median), Unit::kNs,
          "the launch calls' duration, median");
}

// A rank's kernels in a summary: every name, with the union of its instances.
template <class V>
void Fields(V& v, Of<analysis::KernelRow>) {
  using T = analysis::KernelRow;
  v.Field("name", &T::name, Unit::kNone, "the kernel's name as the trace wrote it");
  v.Field("count", &T::count, Unit::kCount, "its instances");
  v.Field("total_ns", &T::total_ns, Unit::kNs, "their durations, summed");
  v.Custom(
      "busy_ns", "integer", Unit::kNs,
      "the union of its instances on each device, summed (at most the devices' busy time)",
      [](JsonWriter& w, const T& k, const WriteContext&) { w.Int(k.busy_ns); },
      // Summaries written before busy_ns: the sum of durations, which is at
      // least the union (the share is capped at 1 when merged).
      [](ObjectReader& o, T& k) { k.busy_ns = o.Has("busy_ns") ? o.Int("busy_ns") : k.total_ns; });
}

// The report's top_kernels: merged over ranks.
template <class V>
void Fields(V& v, Of<analysis::KernelRow, TopKernels>) {
  v.Name("kernel_row");
  using T = analysis::KernelRow;
  v.Field("name", &T::name, Unit::kNone, "the kernel's name as the trace wrote it");
  v.Field("count", &T::count, Unit::kCount, "its instances");
  v.Field("total_ns", &T::total_ns, Unit::kNs, "their durations, summed");
  v.Field("mean_ns", &T::mean_ns, Unit::kNs, "total_ns / count");
  v.Field("share_of_busy", &T::share_of_busy, Unit::kShare,
          "the union of its instances over the devices' busy time");
}

template <class V>
void Fields(V& v, Of<analysis::OpRow>) {
  v.Name("op_row");
  using T = analysis::OpRow;
  v.Field("name", &T::name, Unit::kNone, "the op's name as the trace wrote it");
  v.Field("count", &T::count, Unit::kCount, "its calls");
  v.Field("total_ns", &T::total_ns, Unit::kNs, "inclusive host time, summed");
  v.Field("self_ns", &T::self_ns, Unit::kNs, "host time less its child ops', summed");
}

template <class V>
void Fields(V& v, Of<analysis::StepBreakdownRow>) {
  using T = analysis::StepBreakdownRow;
  v.Field("number", &T::number, Unit::kStep, "N of ProfilerStep#N; -1 the whole-trace window");
  v.Field("start_ns", &T::start_ns, Unit::kNs, "the step's start");
  v.Field("end_ns", &T::end_ns, Unit::kNs, "the step's end");
  v.Derived("dur_ns", [](const T& s) { return s.end_ns - s.start_ns; }, Unit::kNs, "end_ns - start_ns");
  v.PerCategory(&T::ns, Unit::kNs, "the step's time in the category; sums to dur_ns");
  v.Group(
      "plugin", "the step as the TensorBoard plugin defines it; null when it drops the step",
      [](auto& g) {
        g.Name("plugin_window");
        g.Field("start_ns", &T::plugin_start_ns, Unit::kNs, "the plugin's step start");
        g.Field("end_ns", &T::plugin_end_ns, Unit::kNs, "the plugin's step end");
        g.Derived("dur_ns", [](const T& s) { return s.plugin_end_ns - s.plugin_start_ns; },
                  Unit::kNs, "end_ns - start_ns");
        g.PerCategory(&T::plugin_ns, Unit::kNs, "the plugin's step time in the category");
      },
      &T::plugin_kept);
}

template <class V>
void Fields(V& v, Of<analysis::StepBreakdown>) {
  using T = analysis::StepBreakdown;
  v.Rank("the rank of the breakdown");
  v.Field("whole_trace", &T::whole_trace, Unit::kNone, "no ProfilerStep#N: one window over the cpu ops");
  v.Field("steady_begin", &T::steady_begin, Unit::kIndex, "the first steady step");
  v.Derived("steady_count", [](const T& s) { return static_cast<int64_t>(s.steps.size() - s.steady_begin); },
            Unit::kCount, "steady steps");
  v.Group("steady_mean", "means over the steady steps (null: none)", [](auto& g) {
    g.PerCategory(&T::steady_mean_ns, Unit::kNs, "mean steady time in the category");
    g.Field("step_ns", &T::steady_mean_step_ns, Unit::kNs, "mean steady step");
  });
  v.Field("plugin_steady_count", &T::plugin_steady_count, Unit::kCount,
          "steady steps the plugin keeps");
  v.Group("plugin_steady_mean", "the plugin's means over the steady steps it keeps", [](auto& g) {
    g.PerCategory(&T::plugin_steady_mean_ns, Unit::kNs, "mean steady time in the category");
    g.Field("step_ns", &T::plugin_steady_mean_step_ns, Unit::kNs, "mean steady step");
  });
  v.Custom(
      "worst_step", "integer or null", Unit::kStep, "the number of the longest steady step",
      [](JsonWriter& w, const T& s, const WriteContext&) {
        if (s.worst_step < 0) w.Null(); else w.Int(s.steps[static_cast<size_t>(s.worst_step)].number);
      },
      [](ObjectReader&, T&) {});  // read once `steps` is (AfterRead)
  v.Field("steps", &T::steps, Unit::kNone, "the steps, in time order", kPerStep);
  v.AfterRead([](ObjectReader& o, T& sb) {
    // worst_step names a step by its number; the report writes it back so.
    const int64_t worst = o.IntOrNull("worst_step", INT64_MIN);
    if (worst != INT64_MIN) {
      for (size_t i = 0; i < sb.steps.size() && sb.worst_step < 0; ++i) {
        if (sb.steps[i].number == worst) sb.worst_step = static_cast<int>(i);
      }
      if (sb.worst_step < 0) o.Fail("worst_step", "names no step of `steps`");
    }
    if (sb.steady_begin > sb.steps.size()) o.Fail("steady_begin", "past the last step");
  });
}

template <class V>
void Fields(V& v, Of<analysis::EfficiencyFigures>) {
  v.Name("efficiency_figures");
  using T = analysis::EfficiencyFigures;
  v.Field("window_ns", &T::window_ns, Unit::kNs, "time measured over");
  v.Field("kernel_busy_ns", &T::kernel_busy_ns, Unit::kNs, "the union of kernels in the window");
  v.Field("gpu_utilization", &T::gpu_utilization, Unit::kShare, "kernel_busy_ns / window_ns");
  v.Field("sm_efficiency", &T::sm_efficiency, Unit::kShare,
          "kernel time weighted by its share of the SMs (null without blocks per SM)");
  v.Field("achieved_occupancy_pct", &T::achieved_occupancy_pct, Unit::kPercent,
          "estimated achieved occupancy, duration-weighted (null without it)");
  v.Field("kernel_ns", &T::kernel_ns, Unit::kNs, "kernel time in the window, summed");
  v.Field("tensor_core_ns", &T::tensor_core_ns, Unit::kNs, "the same over tensor-core kernels");
  v.Field("tensor_core_share", &T::tensor_core_share, Unit::kShare, "tensor_core_ns / kernel_ns");
}

template <class V>
void Fields(V& v, Of<analysis::EfficiencyFigures, StepRatios>) {
  using T = analysis::EfficiencyFigures;
  v.StepNumber("the step's number, as in steps.per_rank[].windows");
  v.Field("gpu_utilization", &T::gpu_utilization, Unit::kShare, "kernel_busy_ns / window_ns");
  v.Field("sm_efficiency", &T::sm_efficiency, Unit::kShare, "as in `steady`");
  v.Field("achieved_occupancy_pct", &T::achieved_occupancy_pct, Unit::kPercent, "as in `steady`");
  v.Field("tensor_core_share", &T::tensor_core_share, Unit::kShare, "as in `steady`");
}

template <class V>
void Fields(V& v, Of<analysis::DeviceEfficiency>) {
  using T = analysis::DeviceEfficiency;
  v.Rank("the rank of the device");
  v.Field("device", &T::device, Unit::kId, "the device index");
  v.Field("num_sms", &T::num_sms, Unit::kCount, "its SMs; null unknown", kNullIfNotPositive);
  v.Field("max_warps_per_sm", &T::max_warps_per_sm, Unit::kCount,
          "resident warps an SM holds at most; null unknown", kNullIfNotPositive);
  v.Field("steady", &T::steady, Unit::kNone, "over the steady windows");
  // Per step only the ratios (the ns figures follow from the step's window
  // and stay in `steady`): a long profiler window has many steps.
  v.Field("steps", &T::steps, Unit::kNone, "one per step", kPerStep, View<StepRatios>{});
}

template <class V>
void Fields(V& v, Of<analysis::KernelOccupancy>) {
  using T = analysis::KernelOccupancy;
  v.Rank("the rank of the kernel");
  v.Field("device", &T::device, Unit::kId, "the device index");
  v.Field("name", &T::name, Unit::kNone, "the kernel's name");
  v.Field("count", &T::count, Unit::kCount, "instances that start in a steady window");
  v.Field("total_ns", &T::total_ns, Unit::kNs, "their durations, summed");
  v.Field("share_of_kernel_time", &T::share_of_kernel_time, Unit::kShare,
          "total_ns / the device's steady kernel_ns");
  v.Field("occupancy_pct", &T::occupancy_pct, Unit::kPercent, "duration-weighted; null absent");
  v.Field("blocks_per_sm", &T::blocks_per_sm, Unit::kNone, "duration-weighted; null absent");
  v.Field("warps_per_sm", &T::warps_per_sm, Unit::kNone, "duration-weighted; null absent");
  v.Field("tensor_core", &T::tensor_core, Unit::kNone, "a tensor-core kernel (by name)");
}

template <class V>
void Fields(V& v, Of<analysis::KernelEfficiency>) {
  using T = analysis::KernelEfficiency;
  v.Field("has_launch_args", &T::has_launch_args, Unit::kNone,
          "some kernel had blocks per SM or occupancy");
  v.Field("devices", &T::devices, Unit::kNone, "one per device");
  v.Field("kernels", &T::kernels, Unit::kNone, "by steady time, heaviest first");
}

template <class V>
void Fields(V& v, Of<analysis::MemoryStepRow>) {
  using T = analysis::MemoryStepRow;
  v.Field("number", &T::number, Unit::kStep, "N of ProfilerStep#N");
  v.Field("start_allocated_bytes", &T::start_allocated_bytes, Unit::kBytes,
          "allocated at the step's start; null unknown", kNullIfNegative);
  v.Field("peak_allocated_bytes", &T::peak_allocated_bytes, Unit::kBytes,
          "allocated at most in the step; null unknown", kNullIfNegative);
  v.Field("end_allocated_bytes", &T::end_allocated_bytes, Unit::kBytes,
          "allocated at the step's end; null unknown", kNullIfNegative);
  v.Field("peak_reserved_bytes", &T::peak_reserved_bytes, Unit::kBytes,
          "reserved at most in the step; null unknown", kNullIfNegative);
  v.Field("alloc_count", &T::alloc_count, Unit::kCount, "allocations in the step");
  v.Field("alloc_bytes", &T::alloc_bytes, Unit::kBytes, "bytes they allocated");
}

template <class V>
void Fields(V& v, Of<analysis::MemoryTimeline>) {
  v.Name("memory_row");
  using T = analysis::MemoryTimeline;
  v.Rank("the rank of the device");
  v.Field("device", &T::device, Unit::kNone, "\"cuda:0\", \"cpu\", \"type8:0\"");
  v.Field("device_type", &T::device_type, Unit::kNone, "c10::DeviceType: 0 CPU, 1 CUDA, ...");
  v.Field("device_id", &T::device_id, Unit::kId, "the device index");
  v.Field("capacity_bytes", &T::capacity_bytes, Unit::kBytes,
          "the device's memory (totalGlobalMem); null unknown", kNullIfNegative);
  v.Field("event_count", &T::event_count, Unit::kCount, "[memory] events");
  v.Field("alloc_count", &T::alloc_count, Unit::kCount, "allocations");
  v.Field("free_count", &T::free_count, Unit::kCount, "frees");
  v.Field("first_ts_ns", &T::first_ts_ns, Unit::kNs, "the first event's time");
  v.Field("last_ts_ns", &T::last_ts_ns, Unit::kNs, "the last event's time");
  v.Field("start_allocated_bytes", &T::start_allocated_bytes, Unit::kBytes,
          "allocated before the first event; null unknown", kNullIfNegative);
  v.Field("peak_allocated_bytes", &T::peak_allocated_bytes, Unit::kBytes, "allocated at most");
  v.Field("peak_ts_ns", &T::peak_ts_ns, Unit::kNs, "when");
  v.Field("peak_op", &T::peak_op, Unit::kNone, "the innermost cpu op at the peak; null none",
          kNullIfEmpty);
  v.Field("reserved_at_peak_bytes", &T::reserved_at_peak_bytes, Unit::kBytes,
          "reserved at the peak; null unknown", kNullIfNegative);
  v.Derived(
      "cache_at_peak_bytes",
      [](const T& m) {
        return m.reserved_at_peak_bytes >= 0 ? m.reserved_at_peak_bytes - m.peak_allocated_bytes
                                             : int64_t{-1};
      },
      Unit::kBytes, "reserved_at_peak_bytes - peak_allocated_bytes; null unknown",
      kNullIfNegative);
  v.Field("peak_reserved_bytes", &T::peak_reserved_bytes, Unit::kBytes,
          "reserved at most; null unknown", kNullIfNegative);
  v.Field("end_allocated_bytes", &T::end_allocated_bytes, Unit::kBytes, "allocated after the last event");
  v.Field("end_reserved_bytes", &T::end_reserved_bytes, Unit::kBytes,
          "reserved after the last event; null unknown", kNullIfNegative);
  v.Group("lifetimes", "bytes summed per allocation, by how long it lived", [](auto& g) {
    g.Field("live_at_start_bytes", &T::live_at_start_bytes, Unit::kBytes,
            "allocated before the trace and alive at its start; null unknown", kNullIfNegative);
    g.Field("within_step_bytes", &T::within_step_bytes, Unit::kBytes, "freed in the step that allocated them");
    g.Field("within_step_count", &T::within_step_count, Unit::kCount, "those allocations");
    g.Field("outlive_step_bytes", &T::outlive_step_bytes, Unit::kBytes, "freed in a later step, or never");
    g.Field("outlive_step_count", &T::outlive_step_count, Unit::kCount, "those allocations");
    g.Field("outside_steps_bytes", &T::outside_steps_bytes, Unit::kBytes, "allocated outside every step");
    g.Field("outside_steps_count", &T::outside_steps_count, Unit::kCount, "those allocations");
  });
  v.Field("steps", &T::steps, Unit::kNone, "one per step", kPerStep);
  v.Field("timeline", &T::timeline, Unit::kBytes,
          "allocated bytes over time as [time_ns, bytes]: the maximum of each equal slice, at "
          "most 120 points");
}

template <class V>
void Fields(V& v, Of<analysis::CriticalPathStream>) {
  using T = analysis::CriticalPathStream;
  v.Field("device", &T::device, Unit::kId, "the device index");
  v.Field("stream", &T::stream, Unit::kId, "the stream's id");
  v.Field("compute_ns", &T::compute_ns, Unit::kNs, "non-communication kernels on the path");
  v.Field("comm_ns", &T::comm_ns, Unit::kNs, "communication kernels on the path");
  v.Field("memcpy_ns", &T::memcpy_ns, Unit::kNs, "memory copies on the path");
  v.Field("memset_ns", &T::memset_ns, Unit::kNs, "memory sets on the path");
  v.Field("kernel_gap_ns", &T::kernel_gap_ns, Unit::kNs, "gaps between its kernels on the path");
  v.Field("launch_delay_ns", &T::launch_delay_ns, Unit::kNs, "waiting for launches of its ops");
}

template <class V>
void Fields(V& v, Of<analysis::CriticalPathItem>) {
  using T = analysis::CriticalPathItem;
  v.Field("kind", &T::kind, Unit::kNone, "host | kernel | memcpy | memset | launch_delay | kernel_gap",
          OneOf("host|kernel|memcpy|memset|launch_delay|kernel_gap"));
  v.Field("name", &T::name, Unit::kNone, "the op's name (launch delay, gap: the op that waited)");
  v.Field("ns", &T::ns, Unit::kNs, "its time on the path, summed");
  v.Field("count", &T::count, Unit::kCount, "its segments");
}

template <class V>
void Fields(V& v, Of<analysis::CriticalPathStep>) {
  using T = analysis::CriticalPathStep;
  v.Field("number", &T::number, Unit::kStep, "N of ProfilerStep#N");
  v.Field("start_ns", &T::start_ns, Unit::kNs, "the step's start");
  v.Field("end_ns", &T::end_ns, Unit::kNs, "the step's end");
  v.Field("path_ns", &T::path_ns, Unit::kNs, "path time inside the step");
  v.Field("host_ns", &T::host_ns, Unit::kNs, "of which host");
  v.Field("device_ns", &T::device_ns, Unit::kNs, "of which device");
  v.Field("launch_delay_ns", &T::launch_delay_ns, Unit::kNs, "of which launch delay");
  v.Field("kernel_gap_ns", &T::kernel_gap_ns, Unit::kNs, "of which kernel gaps");
  v.Field("sync_ns", &T::sync_ns, Unit::kNs, "path time while the host waited in a sync");
}

template <class V>
void Fields(V& v, Of<analysis::CriticalPath>) {
  using T = analysis::CriticalPath;
  v.Rank("the rank of the path");
  v.Field("status", &T::status, Unit::kNone, "ok | no-events | cycle", OneOf("ok|no-events|cycle"));
  v.Field("cuda_sync_events", &T::cuda_sync_events, Unit::kNone,
          "the trace has cuda_sync rows (else syncs are inferred)");
  v.Field("window_start_ns", &T::window_start_ns, Unit::kNs, "the first window's start");
  v.Field("window_end_ns", &T::window_end_ns, Unit::kNs, "the last window's end");
  v.Field("window_ns", &T::window_ns, Unit::kNs, "the windows analysed, summed");
  v.Field("steady_steps", &T::steady_steps, Unit::kCount, "steady windows of the rank");
  v.Derived("steps_analysed", [](const T& cp) { return static_cast<int64_t>(cp.steps.size()); },
            Unit::kCount, "windows analysed (the first steady ones)");
  v.Field("node_count", &T::node_count, Unit::kCount, "nodes of the graph");
  v.Field("edge_count", &T::edge_count, Unit::kCount, "edges of the graph");
  v.Field("length_ns", &T::length_ns, Unit::kNs, "host + device + launch delay + kernel gap");
  v.Field("host_ns", &T::host_ns, Unit::kNs, "host time on the path");
  v.Field("device_ns", &T::device_ns, Unit::kNs, "device time on the path");
  v.Field("launch_delay_ns", &T::launch_delay_ns, Unit::kNs, "launch delay on the path");
  v.Field("kernel_gap_ns", &T::kernel_gap_ns, Unit::kNs, "kernel gaps on the path");
  v.Field("sync_ns", &T::sync_ns, Unit::kNs, "path time while the host waited in a sync (a part of the rest)");
  v.Field("streams", &T::streams, Unit::kNone, "by (device, stream)");
  v.Field("top", &T::top, Unit::kNone, "the heaviest names on the path");
  v.Field("steps", &T::steps, Unit::kNone, "one per window analysed");
}

template <class V>
void Fields(V& v, Of<analysis::CompiledRegionRow>) {
  using T = analysis::CompiledRegionRow;
  v.Field("name", &T::name, Unit::kNone, "the compiled region's name");
  v.Field("instances", &T::instances, Unit::kCount, "host ranges of that name");
  v.Field("kernel_count", &T::kernel_count, Unit::kCount, "kernels launched inside them");
  v.Field("triton_kernel_count", &T::triton_kernel_count, Unit::kCount, "of which Triton");
  v.Field("kernel_ns", &T::kernel_ns, Unit::kNs, "those kernels' time, summed");
}

template <class V>
void Fields(V& v, Of<analysis::RankAnalysis, Graphs>) {
  using T = analysis::RankAnalysis;
  using G = analysis::GraphStats;
  using C = analysis::CompiledRegions;
  v.Rank("the rank of the graphs");
  v.Field("launch_count", Path(&T::graphs, &G::launch_count), Unit::kCount, "graph launch calls");
  v.Field("launches_with_activity", Path(&T::graphs, &G::launches_with_activity), Unit::kCount,
          "with at least one device op linked");
  v.Field("launches_without_activity", Path(&T::graphs, &G::launches_without_activity),
          Unit::kCount, "with none although the device was recorded later");
  v.Derived("kernels_missing", [](const T& a) { return a.graphs.kernels_missing(); }, Unit::kNone,
            "launches_without_activity > 0");
  v.Field("device_op_count", Path(&T::graphs, &G::device_op_count), Unit::kCount,
          "device ops linked to graph launches");
  v.Field("kernel_count", Path(&T::graphs, &G::kernel_count), Unit::kCount, "of which kernels");
  v.Field("device_ns", Path(&T::graphs, &G::device_ns), Unit::kNs, "those ops' durations, summed");
  v.Field("triton_kernel_count", Path(&T::compiled, &C::triton_kernel_count), Unit::kCount,
          "every Triton kernel of the trace");
  v.Field("triton_kernels_outside_regions", Path(&T::compiled, &C::triton_kernels_outside),
          Unit::kCount, "launched outside any compiled region");
  v.Field("compiled_regions", Path(&T::compiled, &C::regions), Unit::kNone,
          "by kernel_ns, heaviest first");
}

template <class V>
void Fields(V& v, Of<analysis::ShapeRow>) {
  v.Name("shape_row");
  using T = analysis::ShapeRow;
  constexpr Attr kSinceLaterOrNull{Null::kEmpty, false, true};
  // The argument texts as the trace wrote them, as strings (the report writes
  // them as the arrays they are: ShapeRowInReport below).
  v.Field("op", &T::op, Unit::kNone, "the op's name");
  v.Field("input_dims", &T::input_dims, Unit::kNone, "\"Input Dims\" as JSON text; null absent", kNullIfEmpty);
  v.Field("input_types", &T::input_types, Unit::kNone, "\"Input type\" as JSON text; null absent", kNullIfEmpty);
  v.Field("input_strides", &T::input_strides, Unit::kNone, "\"Input Strides\" as JSON text; null absent",
          kNullIfEmpty);
  v.Field("input_concrete", &T::input_concrete, Unit::kNone,
          "\"Concrete Inputs\" as JSON text; null absent (missing in older summaries)", kSinceLaterOrNull);
  v.Field("count", &T::count, Unit::kCount, "calls with these arguments");
  v.Field("total_ns", &T::total_ns, Unit::kNs, "their inclusive host time");
  v.Field("device_ns", &T::device_ns, Unit::kNs, "device activity they launched");
}

// A shape row as the report lists it (report.shapes[]): the argument texts
// written as the arrays the trace wrote.
struct ShapeRowInReport;
template <class V>
void Fields(V& v, Of<analysis::ShapeRow, ShapeRowInReport>) {
  v.Name("shape_row");
  using T = analysis::ShapeRow;
  constexpr Attr kArgs{.null = Null::kEmpty, .json_array = true};
  v.Field("op", &T::op, Unit::kNone, "the op's name");
  v.Field("input_dims", &T::input_dims, Unit::kNone, "\"Input Dims\" as the trace wrote it; null absent",
          kArgs);
  v.Field("input_types", &T::input_types, Unit::kNone,
          "\"Input type\" as the trace wrote it; null absent", kArgs);
  v.Field("input_strides", &T::input_strides, Unit::kNone,
          "\"Input Strides\" as the trace wrote it; null absent", kArgs);
  v.Field("input_concrete", &T::input_concrete, Unit::kNone,
          "\"Concrete Inputs\" as the trace wrote it; null absent", kArgs);
  v.Field("count", &T::count, Unit::kCount, "calls with these arguments");
  v.Field("total_ns", &T::total_ns, Unit::kNs, "their inclusive host time", Attr{.least = "0"});
  v.Field("device_ns", &T::device_ns, Unit::kNs, "device activity they launched",
          Attr{.least = "0"});
}

}  // namespace fastenough::report::fields
