#include "fastenough/rundir/run_report.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "fastenough/analysis/statistics.h"
#include "fastenough/pipeline/analyze.h"
#include "fastenough/pipeline/assemble.h"
#include "fastenough/pipeline/merge.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/report_json.h"
#include "fastenough/findings/overlaps.h"
#include "fastenough/rundir/check_findings.h"
#include "fastenough/rundir/dataloader_wait.h"
#include "fastenough/rundir/meta_facts.h"
#include "fastenough/rundir/run_files.h"
#include "fastenough/rundir/run_findings.h"
#include "fastenough/rundir/sampler_findings.h"
#include "fastenough/rundir/scheduler_wait.h"
#include "fastenough/rundir/step_reference.h"
#include "fastenough/trace/load_trace.h"

namespace fastenough::rundir {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> TraceFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir + "/trace", ec)) {
    std::string name = e.path().filename().string();
    auto ends = [&](const std::string& suf) {
      return name.size() >= suf.size() && name.compare(name.size() - suf.size(), suf.size(), suf) == 0;
    };
    // (rank<R>.callsites.json beside a trace is the agent's call lines, no trace)
    if (e.is_regular_file() && (ends(".json") || ends(".json.gz")) && !ends(".callsites.json")) {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The steady figures of one mode over all ranks: steps/s of its lowest rank
// (ranks step together), items and tokens per second summed over the ranks
// (each has its own batch), real tokens from the checks' padding sample.
struct ModeFigures {
  std::string mode;
  int ranks = 0;
  analysis::Distribution steady;
  double steps_per_s = report::kAbsent, items_per_s = report::kAbsent;
  double tokens_per_s = report::kAbsent, real_tokens_per_s = report::kAbsent;
};

ModeFigures FiguresOf(const RunReport& rr, const std::vector<StepRecord>* steps,
                      const std::string& mode) {
  ModeFigures m;
  m.mode = mode;
  double items = 0, tokens = 0;
  bool all_items = true, all_tokens = true;
  for (const StepSummary& s : rr.steps) {
    if (s.mode != mode || s.count == 0) continue;
    if (m.ranks == 0 && s.steps_per_s) m.steps_per_s = *s.steps_per_s;
    ++m.ranks;
    if (s.items_per_s) items += *s.items_per_s; else all_items = false;
    if (s.tokens_per_s) tokens += *s.tokens_per_s; else all_tokens = false;
  }
  if (m.ranks > 0 && all_items) m.items_per_s = items;
  if (m.ranks > 0 && all_tokens) {
    m.tokens_per_s = tokens;
    if (rr.real_token_share) m.real_tokens_per_s = tokens * *rr.real_token_share;
  }
  if (steps != nullptr) {
    std::vector<int64_t> d;
    for (const StepRecord& s : *steps) {
      if (s.mode == mode && s.phase == "steady") d.push_back(s.end_mono_ns - s.start_mono_ns);
    }
    m.steady = analysis::Summarize(d);
  }
  return m;
}

std::vector<ModeFigures> ByMode(const RunReport& rr) {
  std::vector<ModeFigures> out;
  for (const StepSummary& s : rr.steps) {
    if (s.count == 0) continue;
    bool seen = false;
    for (const auto& m : out) seen = seen || m.mode == s.mode;
    if (!seen) out.push_back(FiguresOf(rr, &rr.step_records, s.mode));
  }
  return out;
}

// The report's run_details (report/run_blocks.h) of what the run directory held.
report::RunDetails RunDetailsOf(const RunReport& rr) {
  report::RunDetails d;
  for (const PhaseRow& p : MergePhaseRows(rr.phases)) {  // as report.phases lists them
    report::RunPhaseDetail q;
    q.name = p.name;
    q.rank = p.rank;
    q.pid = p.pid;
    q.instances = p.instances;
    q.mode = p.mode;
    q.automatic = p.automatic;
    q.complete = p.complete;
    q.busy_source = p.busy_source;
    q.cpu_mean_pct = p.cpu_mean_pct.value_or(report::kAbsent);
    q.rss_max = p.rss_max.value_or(-1);
    q.mem_total = p.mem_total.value_or(-1);
    q.device_samples = p.samples;
    d.phases.push_back(std::move(q));
  }
  for (const StepSummary& s : rr.steps) {
    report::RunStepsOfRank q;
    q.rank = s.rank;
    q.mode = s.mode;
    q.steps = s.all_steps;
    q.steady_count = s.count;
    q.median_ns = s.median_ns;
    q.p10_ns = s.p10_ns;
    q.p90_ns = s.p90_ns;
    q.span_ns = s.span_ns;
    q.steady_ns = s.steady_ns;
    q.steps_per_s = s.steps_per_s.value_or(report::kAbsent);
    q.items_per_s = s.items_per_s.value_or(report::kAbsent);
    q.tokens_per_s = s.tokens_per_s.value_or(report::kAbsent);
    q.source = s.source;
    d.steps_per_rank.push_back(std::move(q));
  }
  for (const ModeFigures& m : ByMode(rr)) {
    report::RunStepsOfMode q;
    q.mode = m.mode;
    q.ranks = m.ranks;
    q.steady_count = m.steady.count;
    q.median_ns = m.steady.median;
    q.p10_ns = m.steady.p10;
    q.p90_ns = m.steady.p90;
    q.steps_per_s = m.steps_per_s;
    q.items_per_s = m.items_per_s;
    q.tokens_per_s = m.tokens_per_s;
    q.real_tokens_per_s = m.real_tokens_per_s;
    d.steps_by_mode.push_back(std::move(q));
  }
  d.traces = rr.traces;
  d.problems = rr.problems;
  d.in_job = rr.in_job;
  return d;
}

// The process tree's mean CPU use over the loop: the steady phases, weighted by
// their length, else the warm-up ones (a run that never settled); and the
// share of it used by processes other than the loop's own (main or ranks).
LoopCpu MeasureLoopCpu(const std::vector<PhaseRow>& phases, const std::vector<AgentRecord>& agents) {
  std::set<int64_t> loop_pids;
  for (const AgentRecord& a : agents) {
    if (a.in_the_loop()) loop_pids.insert(a.pid);
  }
  LoopCpu out;
  for (const char* name : {"steady", "warmup"}) {
    double sum = 0, helpers = 0, weight = 0;
    bool by_pid = false;
    for (const PhaseRow& p : phases) {
      if (p.name != name || !p.cpu_mean_pct || p.host_ns <= 0) continue;
      const double w = static_cast<double>(p.host_ns);
      sum += *p.cpu_mean_pct * w;
      weight += w;
      by_pid = by_pid || !p.cpu_mean_pct_by_pid.empty();
      for (const auto& [pid, pct] : p.cpu_mean_pct_by_pid) {
        if (!loop_pids.count(pid)) helpers += pct * w;
      }
    }
    if (weight > 0) {
      out.tree_pct = sum / weight;
      if (by_pid) out.helpers_pct = helpers / weight;
      return out;
    }
  }
  return out;
}

// The trace part of the report from the traces in trace/. One bad file is set
// aside (and named) so that the other ranks are still analysed.
void AnalyzeTraceFiles(const std::string& dir, const RunReportOptions& options,
                       const pipeline::AnalyzeOptions& ao, RunReport* out) {
  RunReport& rr = *out;
  std::vector<std::string>& problems = rr.problems;
  rr.traces = TraceFiles(dir);
  std::vector<trace::EventStore> stores;
  stores.reserve(rr.traces.size());
  std::vector<std::string> good;
  const uint64_t total = 1000 * static_cast<uint64_t>(rr.traces.size());
  for (size_t i = 0; i < rr.traces.size(); ++i) {
    const std::string& path = rr.traces[i];
    trace::LoadOptions load;
    if (options.progress) {
      // One file after the other: file i covers [1000 i, 1000 (i + 1)).
      load.progress = [&options, i, total](uint64_t done, uint64_t bytes) {
        uint64_t part = bytes ? std::min<uint64_t>(999, done * 1000 / bytes) : 0;
        options.progress(1000 * i + part, total);
      };
    }
    StatusOr<trace::EventStore> s = trace::LoadTrace(path, load);
    if (!s.ok()) {
      problems.push_back(path + ": trace not analysed: " + s.status().message());
      continue;
    }
    if (s->path.empty()) s->path = path;
    stores.push_back(std::move(s).value());
    good.push_back(path);
  }
  if (options.progress && total) options.progress(total, total);
  std::vector<const trace::EventStore*> ptrs;
  for (const auto& s : stores) ptrs.push_back(&s);
  rr.report = pipeline::BuildReport(ptrs, ao);
  rr.traces = good;
}

}  // namespace

StatusOr<RunReport> AnalyzeRunDir(const std::string& dir, const RunReportOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return NotFound(dir + ": not a run directory");
  RunReport rr;
  std::vector<std::string>& problems = rr.problems;

  // The agents' records first: they say whose each Python frame is.
  rr.agents = ReadAgentRecords(dir, &problems);
  analysis::FrameRoots roots = options.frame_roots;
  for (const AgentRecord& a : rr.agents) {
    if (a.in_the_loop() && !a.python_roots.empty()) {
      roots = a.python_roots;
      break;
    }
  }
  pipeline::AnalyzeOptions ao;
  ao.threads = options.threads;
  ao.frame_roots = roots;
  if (!options.rank_summaries.empty()) {
    StatusOr<std::vector<report::RankSummary>> merged =
        pipeline::ReadRankSummaries(options.rank_summaries);
    if (merged.ok()) {
      // The order TraceFiles gives the traces themselves: the same report.
      std::vector<report::RankSummary> ranks = std::move(merged).value();
      std::stable_sort(ranks.begin(), ranks.end(), [](const auto& a, const auto& b) {
        return a.input.path < b.input.path;
      });
      for (const auto& s : ranks) rr.traces.push_back(s.input.path);
      rr.report = pipeline::AssembleReport(std::move(ranks), ao.top_n);
    } else {
      problems.push_back("rank summaries not merged, the traces analysed instead: " +
                         merged.status().message());
    }
  }
  const bool summaries_merged = !rr.traces.empty();
  if (options.rank_summaries.empty() || rr.traces.empty()) AnalyzeTraceFiles(dir, options, ao, &rr);
  rr.in_job = options.in_job;
  if (rr.in_job && rr.in_job->used && !summaries_merged) {
    // Not merged: the summaries could not be read (a problem above).
    rr.in_job->used = false;
    rr.in_job->note = "the summaries could not be read; the report was made from the traces";
  }
  report::Report& r = rr.report;

  MetaFacts meta = ReadMeta(dir + "/meta.json", &problems);
  RunFiles files;
  ReadPhases(dir + "/phases.jsonl", &files);
  ReadSteps(dir + "/steps.jsonl", &files);
  ReadSamples(dir + "/samples.csv", &files);
  problems.insert(problems.end(), files.problems.begin(), files.problems.end());

  // Phase table.
  PhaseTableInputs in;
  in.visible_physical = meta.visible_physical;
  in.run_end_wall_ns = meta.end_wall_ns;
  std::optional<double> window_busy;
  for (const auto& ra : r.ranks) {
    int64_t busy = 0, span = 0;
    for (const auto& d : ra.devices) {
      busy += d.busy_ns;
      span += d.span_ns;
    }
    if (span > 0) {
      in.trace_busy_share[ra.rank] = static_cast<double>(busy) / static_cast<double>(span);
      if (!window_busy) window_busy = in.trace_busy_share[ra.rank];
    }
  }
  rr.phases = BuildPhaseTable(files, in);
  r.phases.clear();
  // The list the report shows: a mode's consecutive instances of a phase
  // merged, and bounded (the analyses below read every instance).
  for (const PhaseRow& p : MergePhaseRows(rr.phases)) {
    report::PhaseRow q;
    q.name = p.name;
    q.mode = p.mode;
    q.rank = p.rank;
    q.start_ns = p.start_wall_ns;
    q.end_ns = p.end_wall_ns;
    q.host_ns = p.host_ns;
    q.device_busy_share = p.device_busy_share.value_or(report::kAbsent);
    q.util_mean = p.util_mean.value_or(report::kAbsent);
    q.power_mean_w = p.power_mean_w.value_or(report::kAbsent);
    q.mem_used_max = p.mem_used_max.value_or(-1);
    q.alloc_peak = p.alloc_peak.value_or(-1);
    q.reserved_peak = p.reserved_peak.value_or(-1);
    r.phases.push_back(q);
  }

  // census.json and syncs.json are the agent's raw measurements; what they
  // imply is already decided into checks.json's findings.
  ChecksFile checks = ReadCheckFindings(dir + "/checks.json", "checks.json", &r.findings, &problems);
  rr.real_token_share = checks.real_token_share;

  // Steps: the agent's step records replace the trace's ProfilerStep view
  // (which only covers the profile window) whenever there are any. The
  // headline figures are those of the mode with the most steady time.
  rr.steps = SummarizeSteps(files.steps);
  rr.headline_mode = HeadlineMode(rr.steps);
  rr.step_records = std::move(files.steps);
  if (!rr.step_records.empty()) {
    std::vector<int64_t> all;
    for (const StepRecord& s : rr.step_records) all.push_back(s.end_mono_ns - s.start_mono_ns);
    r.steps.duration = analysis::Summarize(all);
    ModeFigures head = FiguresOf(rr, &rr.step_records, rr.headline_mode);
    r.steps.steady_duration = head.steady;
    r.steps.steady_steps_per_s = head.steps_per_s;
    r.steps.items_per_s = head.items_per_s;
    r.steps.tokens_per_s = head.tokens_per_s;
    r.steps.real_tokens_per_s = head.real_tokens_per_s;
    r.steps.mode = rr.headline_mode;
  }

  // Run block and meta.
  report::RunInfo run;
  run.command = meta.command;
  run.exit_status = static_cast<int>(meta.exit_status.value_or(-1));
  run.signal = static_cast<int>(meta.signal.value_or(0));
  if (meta.start_wall_ns && meta.end_wall_ns) run.wall_ns = *meta.end_wall_ns - *meta.start_wall_ns;
  if (options.ended) {  // meta.json was not rewritten at the end: the supervisor knows
    run.exit_status = options.ended->exit_status;
    run.signal = options.ended->signal;
    run.wall_ns = options.ended->wall_ns;
  }
  run.run_dir = fs::absolute(dir, ec).lexically_normal().string();
  const char* expected[] = {"meta.json", "phases.jsonl", "steps.jsonl", "samples.csv"};
  for (const char* name : expected) {
    if (!fs::exists(dir + "/" + name, ec)) run.missing.push_back(name);
  }
  if (rr.agents.empty()) run.missing.push_back("agent/*.json");
  if (rr.traces.empty()) run.missing.push_back("trace/*.json.gz");
  r.run = run;
  // meta.json's record, typed (report/meta_record.h); its agents are re-read below.
  r.meta.record = meta.record;
  r.meta.agents.emplace();
  for (const AgentRecord& a : rr.agents) r.meta.agents->push_back(a.record);
  // The workload measured its own batch knee with fastenough.sweep_batch.
  r.meta.batch_sweep = ReadBatchSweep(dir, &problems);

  // What the measurement saw.
  MeasurementInputs mi;
  mi.agents = rr.agents;
  mi.steps = rr.steps;
  mi.checks_file = checks.present;
  mi.checks_error = checks.error;
  mi.trace_wanted = meta.trace_wanted;
  mi.traces_analysed = static_cast<int>(rr.traces.size());
  for (const report::CounterRow& c : r.counters) {
    if (c.severity != "info") mi.trace_data_lost.push_back(c.name + ": " + std::to_string(c.count));
  }
  r.measurement = AssessMeasurement(mi);

  // Findings of the run beyond the trace's and the checks'.
  bool has_device = !r.ranks.empty() && std::any_of(r.ranks.begin(), r.ranks.end(), [](const auto& ra) {
    return !ra.devices.empty();
  });
  for (const AgentRecord& a : rr.agents) {
    for (const report::MetaAgentDevice& d : a.record.devices) {  // "cuda:0", "npu:0", "cpu"
      has_device = has_device || d.device.rfind("cuda", 0) == 0 || d.device.rfind("npu", 0) == 0;
    }
  }
  // A rank the scheduler kept waiting for cores is not the program's straggler.
  LeaveOutRankFindingsTheSchedulerExplains(rr.agents, has_device, &r.findings, &*r.measurement);
  AddSamplerFindings(meta, rr.phases, options, &r.findings);
  AddGrowingInputFindings(rr.step_records, rr.agents, &r.findings);
  AddCpuThreadFindings(rr.agents, MeasureLoopCpu(rr.phases, rr.agents), &r.findings);
  // One step reference for the report's savings: its headline steady median.
  const bool has_reference = !rr.step_records.empty() && r.steps.steady_duration.count > 0 &&
                             std::isfinite(r.steps.steady_duration.median);
  const auto reference_ns =
      has_reference ? static_cast<int64_t>(std::llround(r.steps.steady_duration.median)) : 0;
  if (has_reference) {
    FindDataloaderWaitFromAgents(rr.agents, r.steps.mode, reference_ns, has_device, &r.findings);
  }
  FitDataloaderAdvice(rr.agents, has_device, &r.findings);
  if (has_reference) {
    ExpressSavingsAgainstStep(reference_ns, &r.findings);
    PriceDataloaderWaitFromAgents(rr.agents, r.steps.mode, reference_ns, &r.findings);
  }
  StepBoundInputs sb;
  sb.steps = rr.steps;
  sb.agents = rr.agents;
  sb.has_device = has_device;
  sb.window_busy_share = window_busy;
  for (const AgentRecord& a : rr.agents) {
    if (a.in_the_loop() && a.traced && sb.window_mode.empty()) sb.window_mode = a.profile_mode;
  }
  for (const auto& f : r.findings) sb.memory_near_limit |= f.code == "memory-near-limit";
  // Savings that count the same part of the step are marked as overlapping;
  // step-bound describes what the avoidable ones leave.
  findings::MarkClassOverlaps(r.findings);
  for (const auto& t : findings::BoundAvoidable(r.findings)) sb.avoidable_share[t.rank] = t.share_of_step;
  for (const auto& ra : r.ranks) {
    int64_t steps_ns = 0, comm_ns = 0;
    for (const auto& st : ra.steps.steps) steps_ns += st.window.dur_ns();
    for (const auto& op : ra.ops) {
      if (op.name.rfind("c10d::", 0) == 0 || op.name.rfind("gloo:", 0) == 0 ||
          op.name.rfind("nccl:", 0) == 0) {
        comm_ns += op.self_ns;
      }
    }
    if (steps_ns > 0 && comm_ns > 0) {
      sb.comm_share[ra.rank] = std::min(1.0, static_cast<double>(comm_ns) / steps_ns);
    }
  }
  // Ranks of a distributed job, not any two processes that ran steps: nanoGPT's
  // bench.py and timm's benchmark.py each had two "main" processes and no
  // collective, and were told their steps waited in all-reduce (issue 22).
  int ranks = 0;
  bool traced = false;
  for (const AgentRecord& a : rr.agents) {
    ranks += a.role == "rank" ? 1 : 0;
    traced = traced || a.traced;
  }
  sb.distributed_untraced = ranks > 1 && !traced;
  AddStepBoundFindings(sb, &r.findings);
  r.avoidable = findings::BoundAvoidable(r.findings);
  report::RankFindings(r.findings);
  if (options.cross_reference_lint && !meta.cwd.empty()) {
    r.lint = CrossReferenceLint(&r.findings, meta.cwd, meta.command);
  }
  if (!options.earlier_runs.empty()) {
    r.repeatability = CompareWithEarlierRuns(r.findings, options.earlier_runs);
  }
  r.run_details = RunDetailsOf(rr);
  return rr;
}

StatusOr<std::string> AnalyzeRunDirToJson(const std::string& dir, const RunReportOptions& options) {
  StatusOr<RunReport> rr = AnalyzeRunDir(dir, options);
  if (!rr.ok()) return rr.status();
  return report::ReportToJson(rr->report);  // the run's blocks are the report's own
}

}  // namespace fastenough::rundir
