// The below-roof findings (issue 38 item 3): a hot roofline row (at least 5%
// of the rank's device time) that runs under kFarBelowRoofPct (50%) of the
// roof that binds it, with calls of at least 10 us of device time each
// (kMinBelowRoofCallNs), at a shape whose cost roofline_causes.h can show, gets
// a finding of that cause's code: fp32-in-mixed-precision,
// gemm-dims-unaligned, attention-short-sequence, gemm-memory-bound-shape,
// gemm-wave-quantization. One finding per code and rank; each op shape has
// at most one cause, so no two of these findings claim the same op time.
//
// The saving is bounded by the roof, never predicted from a FLOP ratio: over
// the steady steps, the device time of what the op's calls launched (the same
// link as the roofline: the op enclosing the launch call) less the time the
// same calls would take at the roof,
//   saving = steady device time * (1 - time at the roof / device time),
// an upper bound; the critical path then caps it like any finding about
// events (depth_evidence.cc): time off the path shortens nothing.
// Rows without a roof (no peaks: no deviceProperties or an unknown device)
// and ops without a model (not rows) get nothing.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_set>

#include "fastenough/findings/catalog.h"
#include "fastenough/findings/detectors.h"
#include "fastenough/findings/roofline_causes.h"
#include "fastenough/util/units.h"

namespace fastenough::findings {

namespace {

using trace::EventKind;
using trace::kNoRow;

// A far-below row and what its calls launched in the steady steps.
struct BelowRoofOp {
  const roofline::OpRoofline* row = nullptr;
  StringId name = kNoString, dims = kNoString, types = kNoString;
  int64_t steady_ns = 0;
  int32_t device = -1;
  int32_t example_op = kNoRow;
  std::unordered_set<int32_t> calls;
  std::vector<timeline::Interval> spans;
};

// The op a device activity belongs to, as the roofline links it
// (rank_roofline.cc's OwningOp): the op enclosing its launch call, else the
// External id link of the activity or of its launch.
int32_t BelowRoofOwner(const DetectContext& ctx, size_t i) {
  const auto& s = ctx.store;
  const int32_t launch = s.launch_row.empty() ? kNoRow : s.launch_row[i];
  int32_t op = launch != kNoRow ? ctx.tree.Enclosing(s, launch, EventKind::kCpuOp) : kNoRow;
  if (op == kNoRow && !s.cpu_op_row.empty()) op = s.cpu_op_row[i];
  if (op == kNoRow && launch != kNoRow && !s.cpu_op_row.empty()) op = s.cpu_op_row[launch];
  if (op == kNoRow || s.kind[op] != EventKind::kCpuOp || s.input_dims[op] == kNoString) return kNoRow;
  return op;
}

int SmsOf(const trace::EventStore& s, int32_t device) {
  for (const auto& p : s.device_properties) {
    if (p.id == device) return p.num_sms;
  }
  return 0;
}

bool IsLowPrecisionColumn(const std::string& c) { return c == "bf16" || c == "fp16" || c == "fp8"; }
bool IsMatrixRow(const roofline::OpRoofline& r) {
  return r.family == "matmul" || r.family == "attention" || r.family == "convolution";
}

struct Member {
  BelowRoofOp* op;
  BelowRoofCause cause;
  int64_t saving_ns;
  int64_t roof_ns;
};

}  // namespace

void DetectBelowRoof(const DetectContext& ctx, std::vector<Finding>& out) {
  if (ctx.roofline == nullptr || ctx.roofline->ops.empty() || ctx.steady.empty()) return;
  const auto& s = ctx.store;
  const auto& rows = ctx.roofline->ops;
  // Which rows are hot and far below the roof that binds them.
  int64_t device_ns = -1;
  std::vector<BelowRoofOp> far;
  for (const auto& row : rows) {
    const double pct = roofline::PctOfBindingRoof(row);
    if (!std::isfinite(pct) || pct >= kFarBelowRoofPct || !(row.time_at_roof_ns >= 0) ||
        row.device_ns <= 0 || row.calls <= 0 || row.device_ns / row.calls < kMinBelowRoofCallNs) {
      continue;
    }
    if (device_ns < 0) device_ns = DeviceActivityNs(s);
    if (static_cast<double>(row.device_ns) < kRoofHotShare * static_cast<double>(device_ns)) continue;
    BelowRoofOp b;
    b.row = &row;
    b.name = s.strings().Find(row.op);
    b.dims = s.strings().Find(row.input_dims);
    b.types = row.input_types.empty() ? kNoString : s.strings().Find(row.input_types);
    if (b.name == kNoString || b.dims == kNoString) continue;
    far.push_back(std::move(b));
  }
  if (far.empty()) return;
  // What their calls launched in the steady steps.
  std::vector<int8_t> name_is(s.strings().size(), 0);
  for (const auto& b : far) name_is[b.name] = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!trace::IsDeviceActivity(s.kind[i]) || !ctx.InSteady(s.ts_ns[i])) continue;
    const int32_t op = BelowRoofOwner(ctx, i);
    if (op == kNoRow || !name_is[s.name[op]]) continue;
    for (auto& b : far) {
      if (b.name != s.name[op] || b.dims != s.input_dims[op] || b.types != s.input_types[op]) continue;
      b.steady_ns += s.dur_ns[i];
      if (b.device < 0) b.device = s.device[i];
      if (b.example_op == kNoRow) b.example_op = op;
      b.calls.insert(op);
      b.spans.push_back({s.ts_ns[i], s.end_ns(i)});
      break;
    }
  }
  // The share of the other matrix rows' device time held to a 16- or 8-bit peak.
  int64_t matrix_ns = 0, low_ns = 0;
  for (const auto& row : rows) {
    if (!IsMatrixRow(row) || row.bound.empty()) continue;
    matrix_ns += row.device_ns;
    if (IsLowPrecisionColumn(row.peak.dtype)) low_ns += row.device_ns;
  }
  std::map<std::string, std::vector<Member>> by_code;
  for (auto& b : far) {
    if (b.steady_ns <= 0) continue;
    const roofline::OpRoofline& row = *b.row;
    double low_share = std::numeric_limits<double>::quiet_NaN();
    if (IsMatrixRow(row)) {
      const int64_t others = matrix_ns - row.device_ns;
      const int64_t others_low = low_ns - (IsLowPrecisionColumn(row.peak.dtype) ? row.device_ns : 0);
      if (others > 0) low_share = static_cast<double>(others_low) / static_cast<double>(others);
    }
    std::optional<BelowRoofCause> cause = BelowRoofCauseOf(row, SmsOf(s, b.device), low_share);
    if (!cause) continue;
    // The steady calls at the roof: their share of the row's time at the roof.
    const double at_roof = std::min(1.0, row.time_at_roof_ns / static_cast<double>(row.device_ns));
    const int64_t roof_ns = static_cast<int64_t>(std::llround(static_cast<double>(b.steady_ns) * at_roof));
    const int64_t saving = std::max<int64_t>(0, b.steady_ns - roof_ns);
    if (saving <= 0) continue;
    by_code[cause->code].push_back({&b, std::move(*cause), saving, roof_ns});
  }
  for (auto& [code, members] : by_code) {
    std::sort(members.begin(), members.end(),
              [](const Member& a, const Member& b) { return a.saving_ns > b.saving_ns; });
    const Member& top = members.front();
    const roofline::OpRoofline& row = *top.op->row;
    Finding f = NewFinding(code, top.cause.verdict, s.rank);
    int64_t saving = 0, steady_ns = 0, roof_ns = 0, calls = 0;
    std::vector<timeline::Interval> spans;
    for (const Member& m : members) {
      saving += m.saving_ns;
      steady_ns += m.op->steady_ns;
      roof_ns += m.roof_ns;
      calls += static_cast<int64_t>(m.op->calls.size());
      spans.insert(spans.end(), m.op->spans.begin(), m.op->spans.end());
    }
    f.title += ": " + row.op + " at " + util::FormatShare(roofline::PctOfBindingRoof(row) / 100.0) + " of its " + row.bound +
               " roof";
    AddEvidence(f, "op", row.op);
    AddEvidence(f, "input_dims", row.input_dims);
    AddEvidence(f, "input_types", row.input_types);
    AddEvidence(f, "pct_of_roof", Round3(roofline::PctOfBindingRoof(row)));
    AddEvidence(f, "roof", row.bound);
    AddEvidence(f, "peak_dtype", row.peak.dtype);
      AddEvidence(f, "cause", top.cause.why);
    for (auto& [k, v] : top.cause.evidence) AddEvidence(f, k, v);
    AddEvidence(f, "op_shapes", static_cast<int64_t>(members.size()));
    AddEvidence(f, "calls_per_step", Round3(static_cast<double>(calls) / ctx.steps()));
    AddEvidence(f, "device_ns_per_step", static_cast<int64_t>(std::llround(steady_ns / ctx.steps())));
    AddEvidence(f, "time_at_roof_ns_per_step", static_cast<int64_t>(std::llround(roof_ns / ctx.steps())));
    AddEvidence(f, "saving_basis",
                std::string("device time less the time at the roof, over the steady steps: an upper bound"));
    if (top.cause.verdict == Verdict::kInsufficientEvidence) {
      AddEvidence(f, "missing",
                  std::string("the op timed at its recorded shapes and at a changed one (fastenough replay), "
                              "or a kernel profile (Nsight Compute / rocprof)"));
    }
    ctx.SetSaving(f, saving);
    f.claimed = timeline::IntervalSet::FromUnsorted(spans);
    for (const Member& m : members) {
      if (f.where.size() == 3) break;
      Location loc = WhereOfRow(ctx, m.op->example_op);
      loc.op = m.op->row->op;
      f.where.push_back(std::move(loc));
      const auto& sp = m.op->spans.front();
      AddMark(ctx, f, m.op->row->op + " " + m.op->row->input_dims + " below its roof", sp.start, sp.end,
              m.op->example_op);
    }
    out.push_back(std::move(f));
  }
  // no-tensor-cores says FP32 is the protocol; where the rest of the model's
  // matrix work runs in 16 bits it is not: its verdict becomes a question.
  auto mixed = by_code.find("fp32-in-mixed-precision");
  if (mixed == by_code.end()) return;
  for (Finding& f : out) {
    if (f.code != "no-tensor-cores" || f.rank != s.rank) continue;
    f.verdict = Verdict::kInsufficientEvidence;
    for (auto& [k, v] : mixed->second.front().cause.evidence) AddEvidence(f, k, v);
    AddEvidence(f, "missing",
                std::string("whether these FP32 GEMMs are kept in FP32 on purpose: the rest of the model's "
                            "matrix work runs in 16 bits (fp32-in-mixed-precision names the hot ones)"));
  }
}

}  // namespace fastenough::findings
