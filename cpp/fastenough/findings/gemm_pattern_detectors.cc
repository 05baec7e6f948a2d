// serial-small-gemm and unfused-projections, from the matmul runs of
// analysis/gemm_patterns.h, restricted to steady steps and grouped by
// pattern (scope, op, Input Dims) so that 50 steps of the same expert loop
// make one finding.
//   serial-small-gemm:   >= 4 calls, same op and identical Input Dims, each
//                        call's kernels <= 50 us (host-timed: <= 100 us) or
//                        <= 4 MFLOP by its shapes (small, latency-bound).
//   unfused-projections: 2..4 aten::linear calls on the same input shape
//                        that are not a serial run (weights may differ).
// Saving bound per run (measured, never FLOPs): the device idle between its
// kernels plus (n-1)/n of the per-call floor (n x the shortest call's kernel
// time), i.e. what one grouped call could at most remove.
#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>

#include "fastenough/analysis/gemm_patterns.h"
#include "fastenough/analysis/python_stack.h"
#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

namespace {

constexpr int64_t kSmallKernelNs = 50'000;
// On a CPU program the per-call time includes dispatch; a call this short is
// dominated by per-call overhead that one batched call pays once.
constexpr int64_t kSmallHostCallNs = 100'000;
// Small by shape, whatever the clock said: a loaded or oversubscribed host
// stretches every call, so time alone would hide the loop on a busy machine.
// 4 MFLOP is ~20 us of a CPU core and ~1 us of a GPU: per-call overhead rules.
constexpr int64_t kSmallFlops = 4'000'000;

struct Pattern {
  int64_t runs = 0, calls = 0, kernels = 0, kernel_ns = 0, gap_ns = 0, saving_ns = 0;
  int64_t min_kernel_ns = INT64_MAX;
  int32_t scope = -1;
  bool host_timed = false;
  uint32_t first_call = 0;
  std::string kernel;
  std::vector<timeline::Interval> spans;
  std::vector<std::pair<timeline::Interval, uint32_t>> runs_at;  // span, first call
};

}  // namespace

void DetectGemmPatterns(const DetectContext& ctx, std::vector<Finding>& out,
                        timeline::IntervalSet& explained) {
  const auto& st = ctx.store;
  // Serial loops: runs of calls whose inputs all have the same shapes (a gate
  // or projection of another shape in between ends a run). Projections: runs
  // of calls on the same first input, whatever their weights.
  const auto serial_runs = analysis::FindGemmRuns(st, ctx.tree, ctx.analysis.busy_all, 4,
                                                  analysis::RunKey::kAllInputs);
  const auto input_runs = analysis::FindGemmRuns(st, ctx.tree, ctx.analysis.busy_all, 2,
                                                 analysis::RunKey::kFirstInput);
  // (code, scope name, op name, dims) -> pattern
  std::map<std::tuple<std::string, std::string, std::string, std::string>, Pattern> patterns;
  // With the agent's call lines: a loop calls from one line again and again;
  // calls from different lines (BERT's self.query, self.key, self.value) are
  // projections, whatever their shapes.
  auto one_line_loop = [&](const analysis::GemmRun& r) {
    if (ctx.frames == nullptr || ctx.frames->calls.empty() || r.scope < 0 ||
        st.kind[r.scope] != trace::EventKind::kPythonFunction) {
      return true;  // not known: the shapes decide
    }
    std::map<int, int> per_line;
    int known = 0;
    for (uint32_t c : r.calls) {
      const int line = analysis::UserSiteAt(st, ctx.tree, r.scope, static_cast<int32_t>(c),
                                            ctx.frames).line;
      if (line > 0) {
        ++known;
        ++per_line[line];
      }
    }
    if (known * 2 < static_cast<int>(r.calls.size())) return true;
    int most = 0;
    for (const auto& [line, count] : per_line) most = std::max(most, count);
    return most >= 4;
  };
  auto classify = [&](const analysis::GemmRun& r, bool serial_list) -> const char* {
    const size_t n = r.calls.size();
    const std::string_view op = st.name_of(r.calls.front());
    const bool small =
        r.kernel_count > 0 &&
        (r.max_kernel_ns <= (r.host_timed ? kSmallHostCallNs : kSmallKernelNs) ||
         (r.max_flops >= 0 && r.max_flops <= kSmallFlops));
    const bool serial = n >= 4 && r.identical_dims && r.same_op_name && small && one_line_loop(r);
    if (serial_list) return serial ? "serial-small-gemm" : nullptr;
    // A run that is itself a serial loop is reported as one, not as projections.
    if (serial) return nullptr;
    // (Not on host-timed CPU programs: there a pair of linears costs its
    // FLOPs, and merging them saves too little to tell from the trace.)
    if (!r.host_timed && n <= 4 && r.same_op_name && op == "aten::linear" && r.kernel_count > 0) {
      return "unfused-projections";
    }
    return nullptr;
  };
  std::vector<std::pair<const analysis::GemmRun*, const char*>> classified;
  for (const auto& r : serial_runs) classified.emplace_back(&r, classify(r, true));
  for (const auto& r : input_runs) classified.emplace_back(&r, classify(r, false));
  for (const auto& [run, code_ptr] : classified) {
    const analysis::GemmRun& r = *run;
    if (code_ptr == nullptr || !ctx.InSteady(r.start_ns)) continue;
    const std::string code = code_ptr;
    const size_t n = r.calls.size();
    const std::string_view op = st.name_of(r.calls.front());
    const std::string scope = r.scope >= 0 ? std::string(st.name_of(r.scope)) : std::string();
    Pattern& p = patterns[{code, scope, std::string(op),
                           std::string(st.strings().Get(st.input_dims[r.calls.front()]))}];
    if (p.runs == 0) {
      p.scope = r.scope;
      p.host_timed = r.host_timed;
      p.first_call = r.calls.front();
      p.kernel = r.kernel_name;
    }
    p.runs += 1;
    p.calls += static_cast<int64_t>(n);
    p.kernels += r.kernel_count;
    p.kernel_ns += r.kernel_ns;
    p.gap_ns += r.gap_ns;
    p.saving_ns += r.saving_bound_ns();
    p.min_kernel_ns = std::min(p.min_kernel_ns, r.min_kernel_ns);
    p.spans.push_back({r.start_ns, r.end_ns});
    if (p.runs_at.size() < kMaxMarks && !r.calls.empty()) {
      p.runs_at.push_back({{r.start_ns, r.end_ns}, r.calls.front()});
    }
  }
  // One finding per code; its places are the patterns with the largest bound.
  const double mean_step = ctx.steady_ns / ctx.steps();
  for (const char* code : {"serial-small-gemm", "unfused-projections"}) {
    std::vector<const Pattern*> list;
    std::vector<const std::tuple<std::string, std::string, std::string, std::string>*> keys;
    Pattern sum;
    for (auto& [key, p] : patterns) {
      if (std::get<0>(key) != code) continue;
      list.push_back(&p);
      keys.push_back(&key);
      sum.runs += p.runs;
      sum.calls += p.calls;
      sum.kernels += p.kernels;
      sum.kernel_ns += p.kernel_ns;
      sum.gap_ns += p.gap_ns;
      sum.saving_ns += p.saving_ns;
    }
    if (list.empty()) continue;
    // Under 1% of a step is not worth restructuring the model code.
    if (sum.saving_ns / ctx.steps() < 0.01 * mean_step) continue;
    std::vector<size_t> order(list.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return list[a]->saving_ns > list[b]->saving_ns;
    });
    const bool serial = std::string_view(code) == "serial-small-gemm";
    // Grouping the projections needs them to read the same tensor, which a
    // Kineto trace does not record (only shapes): say so.
    Finding f = NewFinding(code, serial ? Verdict::kAvoidable : Verdict::kInsufficientEvidence,
                           st.rank);
    AddEvidence(f, "patterns", static_cast<int64_t>(list.size()));
    AddEvidence(f, "runs", sum.runs);
    AddEvidence(f, "runs_per_step", Round3(sum.runs / ctx.steps()));
    AddEvidence(f, "calls_per_run", Round3(static_cast<double>(sum.calls) / sum.runs));
    AddEvidence(f, "kernels_per_run", Round3(static_cast<double>(sum.kernels) / sum.runs));
    AddEvidence(f, "kernel_ns_per_call", static_cast<int64_t>(sum.kernel_ns / std::max<int64_t>(sum.calls, 1)));
    AddEvidence(f, "gap_ns_per_run", static_cast<int64_t>(sum.gap_ns / sum.runs));
    AddEvidence(f, "input_dims", std::get<3>(*keys[order[0]]));
    if (list[order[0]]->host_timed) {
      AddEvidence(f, "timing", std::string("host: no device activity in the trace (CPU program); "
                                           "call durations stand in for kernel times"));
    }
    if (!serial) {
      AddEvidence(f, "missing", std::string("whether the calls read the same input tensor "
                                            "(record an execution trace with tensor ids)"));
    }
    for (size_t i = 0; i < order.size() && i < 5; ++i) {
      const Pattern& p = *list[order[i]];
      Location loc = WhereOfRow(ctx, static_cast<int32_t>(p.first_call));
      if (p.scope >= 0 && st.kind[p.scope] == trace::EventKind::kPythonFunction) {
        // The loop's own function, and the line of the call in it (the
        // callsites file), not the line of its def.
        analysis::UserSite site = analysis::UserSiteAt(st, ctx.tree, p.scope,
                                                       static_cast<int32_t>(p.first_call),
                                                       ctx.frames);
        if (site.valid()) {
          loc.file = std::move(site.file);
          loc.line = site.line;
          loc.def_line = site.def_line;
          loc.function = std::move(site.function);
        }
      }
      loc.op = std::get<2>(*keys[order[i]]);
      if (!p.host_timed) loc.kernel = p.kernel;
      const bool seen = std::any_of(f.where.begin(), f.where.end(), [&](const Location& w) {
        return w.file == loc.file && w.line == loc.line && w.op == loc.op && w.kernel == loc.kernel;
      });
      if (!seen) f.where.push_back(loc);
    }
    for (size_t i = 0; i < order.size(); ++i) {
      for (const auto& [span, call] : list[order[i]]->runs_at) {
        AddMark(ctx, f, std::string(serial ? "serial run of " : "projections of one input: ") +
                            std::string(st.name_of(call)),
                span.start, span.end, static_cast<int32_t>(call));
      }
    }
    ctx.SetSaving(f, sum.saving_ns);
    // The idle between the runs' kernels is this finding's; its saving comes
    // from the time of its runs.
    for (const Pattern* p : list) {
      const auto span_set = timeline::IntervalSet::FromUnsorted(p->spans);
      f.claimed = timeline::Union(f.claimed, span_set);
      explained = timeline::Union(explained, timeline::Subtract(span_set, ctx.analysis.busy_all));
    }
    out.push_back(std::move(f));
  }
}

}  // namespace fastenough::findings
