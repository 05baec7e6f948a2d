// The report data model (fastenough.report/1, docs/report-schema.md). The
// pipeline fills it from traces; `fastenough run` adds phases, the run block
// and agent findings; ReportToJson (report_json.h) is the only place that
// turns it into JSON. Absent numbers: NaN for doubles, -1 for counts/bytes,
// written as JSON null.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastenough/analysis/job_critical_path.h"
#include "fastenough/analysis/rank_analysis.h"
#include "fastenough/analysis/shapes.h"
#include "fastenough/findings/finding.h"
#include "fastenough/findings/overlaps.h"
#include "fastenough/report/meta_agent.h"
#include "fastenough/report/meta_record.h"
#include "fastenough/report/run_blocks.h"
#include "fastenough/roofline/rank_roofline.h"
#include "fastenough/trace/counters.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::report {

inline constexpr char kSchema[] = "fastenough.report/1";
inline constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();

struct InputInfo {
  std::string path;
  std::string format;     // kineto | npu-trace-view | legacy-array
  uint64_t bytes = 0;       // on disk
  uint64_t json_bytes = 0;  // after decompression
  uint64_t events = 0;
  std::vector<int> ranks;  // the rank(s) the file holds
  // Not in the JSON: for `analyze --annotate` (see EventStore).
  int64_t events_close_offset = -1;
  std::vector<trace::EventStore::Annotation> annotations;
};

struct CounterRow {
  std::string name;
  std::string severity;  // info | data-loss | error
  uint64_t count = 0;
  std::string description;
  std::vector<std::pair<std::string, uint64_t>> per_input;  // (path, count), non-zero only
};

// One phase of a `fastenough run` (load, compile, warmup, steady, ...).
struct PhaseRow {
  std::string name;
  std::string mode;  // "train" | "eval"; "" (analyze, older agents): written as null
  int rank = 0;
  int64_t start_ns = 0;  // wall clock
  int64_t end_ns = 0;
  int64_t host_ns = -1;              // host (CPU) time in the phase; -1 absent
  double device_busy_share = kAbsent;
  double util_mean = kAbsent;        // sampler, percent
  double power_mean_w = kAbsent;
  int64_t mem_used_max = -1;   // bytes, device memory used (sampler)
  int64_t alloc_peak = -1;     // bytes, torch allocator peak
  int64_t reserved_peak = -1;  // bytes, torch reserved peak
};

// The `fastenough run` block; absent for `analyze`.
struct RunInfo {
  std::vector<std::string> command;
  int exit_status = -1;  // -1: killed by a signal or unknown
  int signal = 0;        // 0: none
  int64_t wall_ns = -1;
  std::string run_dir;
  std::vector<std::string> missing;  // expected run-dir files that were not there
};

// Meta: the reproducibility record. Trace facts first; then meta.json's
// record (fastenough run: its keys as the file had them); then each process's
// agent record and the batch sweep.
struct Meta {
  std::vector<trace::DeviceProperties> device_properties;
  int world_size = 1;
  std::string backend;
  int64_t base_time_ns = trace::kNone;  // kNone: null
  MetaRecord record;  // fastenough run: meta.json's keys; none otherwise
  // fastenough run: agent/<pid>.json of each Python process, as the agent
  // wrote it (an empty list: none); nullopt for traces.
  std::optional<std::vector<MetaAgent>> agents;
  std::optional<BatchSweep> batch_sweep;  // fastenough run, when the workload swept
};

struct StepsSummary {
  analysis::Distribution duration;         // over all ranks' steps
  analysis::Distribution steady_duration;  // over all ranks' steady steps
  double steady_steps_per_s = kAbsent;     // NaN: unknown
  double items_per_s = kAbsent;
  double tokens_per_s = kAbsent;
  // `fastenough run` only: the mode ("train"/"eval") these figures are of, and
  // tokens/s without padding (the checks' attention-mask sample).
  std::string mode;
  double real_tokens_per_s = kAbsent;
};

struct Report {
  std::string schema = kSchema;
  std::string tool_version;
  std::vector<InputInfo> inputs;
  Meta meta;
  std::vector<CounterRow> counters;  // non-zero, merged over inputs
  std::vector<PhaseRow> phases;      // [] for traces
  StepsSummary steps;                // per-rank steps live in ranks[i].steps
  std::vector<analysis::RankAnalysis> ranks;  // devices, launch, steps per rank
  std::vector<analysis::KernelRow> top_kernels;  // merged over ranks, top 20
  std::vector<analysis::OpRow> top_ops;          // merged, top 20 by inclusive time
  std::vector<analysis::OpRow> top_ops_self;     // merged, top 20 by self time
  std::vector<analysis::ShapeRow> shapes;  // the first rank's shape census; [] without
  std::vector<roofline::RankRoofline> roofline;  // per rank: its hot ops against the roofs
  std::vector<roofline::OpWorstRank> roofline_worst;  // ops of several ranks: the worst rank
  // The ranks' own steady work, compared (a pipeline's stages taking turns);
  // not measured with fewer than two ranks (findings/rank_turns.cc).
  analysis::DeviceTurns rank_turns;
  // The job's critical path across ranks, linked by their collectives
  // (analysis/job_critical_path.h); status "one-rank" for one input.
  analysis::JobCriticalPath job_critical_path;
  std::vector<findings::Finding> findings;       // ranked by saving
  // What the avoidable findings of each rank save together (overlapping ones
  // once): at most a step (findings/overlaps.h).
  std::vector<findings::AvoidableTotal> avoidable;
  std::optional<RunInfo> run;
  // The blocks `fastenough run` adds (run_blocks.h); none in a trace's report.
  std::optional<Measurement> measurement;
  std::optional<RunDetails> run_details;
  std::optional<LintCrossReference> lint;
  std::optional<Repeatability> repeatability;
};

// Orders findings: those that change results first (catalog: changes_results),
// then by the most they can save (share_of_step, then per_step_ns, then
// total_ns; unknown savings last); stable for equal savings.
void RankFindings(std::vector<findings::Finding>& findings);

}  // namespace fastenough::report
