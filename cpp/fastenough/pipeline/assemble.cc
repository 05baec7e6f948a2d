#include "fastenough/pipeline/assemble.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "fastenough/findings/detect_all.h"
#include "fastenough/findings/job_path_evidence.h"

namespace fastenough::pipeline {

using report::CounterRow;
using report::RankFindings;
using report::RankSummary;
using report::Report;

Status CheckOneInputPerRank(const std::vector<RankSummary>& ranks, const char* what,
                            const std::vector<std::string>& files) {
  std::map<int, size_t> seen;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const RankSummary& s = ranks[i];
    auto [it, inserted] = seen.emplace(s.analysis.rank, i);
    if (inserted) continue;
    const RankSummary& first = ranks[it->second];
    const bool named = files.size() == ranks.size();
    const std::string a = named ? files[it->second] : first.input.path;
    const std::string b = named ? files[i] : s.input.path;
    const bool unnamed = !first.rank_known || !s.rank_known;
    return InvalidArgument(
        (a == b ? a + " is given twice" : a + " and " + b + " both hold rank " +
                                               std::to_string(s.analysis.rank)) +
        (unnamed && a != b ? " (a trace without a usable distributedInfo.rank counts as rank 0)"
                           : "") +
        (named ? " (summaries of " + first.input.path + " and " + s.input.path + ")" : "") +
        ": a job's report takes one input per rank, and these " + what +
        " would be merged as one rank with its steps counted twice; give each rank once "
        "(analyse other profiler windows of a rank on their own)");
  }
  return Status::Ok();
}

Report AssembleReport(std::vector<RankSummary> ranks, size_t top_n) {
  Report r;
  r.tool_version = FASTENOUGH_VERSION;

  trace::Counters merged;
  for (RankSummary& s : ranks) {
    r.inputs.push_back(s.input);
    merged.Merge(s.counters);
  }
  if (!ranks.empty()) r.meta = ranks.front().meta;
  // The job is at least as large as the ranks it shows (a trace's own
  // world_size may be absent, unusable or smaller: trace/counters.h).
  {
    std::set<int> distinct;
    for (const RankSummary& s : ranks) distinct.insert(s.analysis.rank);
    r.meta.world_size = std::max({r.meta.world_size, static_cast<int>(distinct.size()), 1});
  }
  for (size_t c = 0; c < trace::kCounterCount; ++c) {
    const auto counter = static_cast<trace::Counter>(c);
    if (merged.Get(counter) == 0) continue;
    const trace::CounterInfo& info = trace::GetCounterInfo(counter);
    CounterRow row{std::string(info.name), std::string(trace::SeverityName(info.severity)),
                   merged.Get(counter), std::string(info.description), {}};
    for (const RankSummary& s : ranks) {
      if (s.counters.Get(counter) != 0) {
        row.per_input.emplace_back(s.input.path, s.counters.Get(counter));
      }
    }
    r.counters.push_back(std::move(row));
  }

  // Cross-rank detectors read the collectives (straggler-rank) and the step
  // breakdowns (load-imbalance); the shape
  // census is the first input's (ranks run the same model).
  {
    std::vector<const analysis::RankCollectives*> collectives;
    for (const RankSummary& s : ranks) collectives.push_back(&s.collectives);
    std::vector<const analysis::RankAnalysis*> analyses;
    for (const RankSummary& s : ranks) analyses.push_back(&s.analysis);
    {
      std::vector<std::vector<findings::Finding>*> own;
      for (RankSummary& s : ranks) own.push_back(&s.findings);
      findings::KeepLoaderWaitsBeyondTheOtherRanks(analyses, own);
    }
    for (auto& f : findings::DetectAcrossRanks(collectives, analyses)) {
      r.findings.push_back(std::move(f));
    }
    r.job_critical_path = analysis::AnalyzeJobCriticalPath(collectives);
    for (auto& f : findings::DetectLoadImbalance(analyses)) r.findings.push_back(std::move(f));
    r.rank_turns = findings::JobTurns(analyses);
    for (auto& f : findings::DetectRankTurns(r.rank_turns, findings::HostOnlyJob(analyses),
                                             findings::PointToPoint(collectives))) {
      r.findings.push_back(std::move(f));
    }
    findings::AddJobPathEvidence(r.job_critical_path, r.findings);
    if (!ranks.empty()) {
      r.shapes = ranks.front().shapes;
    }
  }
  for (RankSummary& s : ranks) {
    r.ranks.push_back(std::move(s.analysis));
    r.roofline.push_back(std::move(s.roofline));
    for (auto& f : s.findings) r.findings.push_back(std::move(f));
  }
  r.roofline_worst = roofline::WorstRankPerOp(r.roofline, top_n);
  findings::MarkClassOverlaps(r.findings);
  findings::MarkJobOverlaps(r.findings);
  r.avoidable = findings::BoundAvoidable(r.findings);
  RankFindings(r.findings);

  // Cross-rank summaries.
  std::vector<int64_t> all_steps, steady_steps;
  int64_t busy_sum = 0;
  std::map<std::string, analysis::KernelRow> kernels;
  std::map<std::string, analysis::OpRow> ops;
  for (const auto& ra : r.ranks) {
    for (size_t i = 0; i < ra.steps.steps.size(); ++i) {
      all_steps.push_back(ra.steps.steps[i].window.dur_ns());
      if (i >= ra.steps.steady_begin) steady_steps.push_back(ra.steps.steps[i].window.dur_ns());
    }
    for (const auto& d : ra.devices) busy_sum += d.busy_ns;
    for (const auto& k : ra.kernels) {
      auto& m = kernels[k.name];
      m.name = k.name;
      m.count += k.count;
      m.total_ns += k.total_ns;
      m.busy_ns += k.busy_ns;
    }
    for (const auto& o : ra.ops) {
      auto& m = ops[o.name];
      m.name = o.name;
      m.count += o.count;
      m.total_ns += o.total_ns;
      m.self_ns += o.self_ns;
    }
  }
  r.steps.duration = analysis::Summarize(all_steps);
  r.steps.steady_duration = analysis::Summarize(steady_steps);
  for (auto& [name, k] : kernels) {
    k.mean_ns = static_cast<double>(k.total_ns) / static_cast<double>(k.count);
    k.share_of_busy =
        busy_sum > 0 ? std::min(1.0, static_cast<double>(k.busy_ns) / static_cast<double>(busy_sum)) : 0;
    r.top_kernels.push_back(std::move(k));
  }
  analysis::SortAndTrimKernels(r.top_kernels, top_n);
  for (auto& [name, o] : ops) r.top_ops.push_back(o);
  r.top_ops_self = r.top_ops;
  analysis::SortAndTrimOps(r.top_ops, top_n, /*by_self=*/false);
  analysis::SortAndTrimOps(r.top_ops_self, top_n, /*by_self=*/true);
  return r;
}

}  // namespace fastenough::pipeline
