#include <algorithm>
#include <cmath>

#include "fastenough/analysis/python_stack.h"
#include "fastenough/findings/detectors.h"

namespace fastenough::findings {

void AddEvidence(Finding& f, std::string key, EvidenceValue v) {
  f.evidence.emplace_back(std::move(key), std::move(v));
}

double Round3(double x) { return std::round(x * 1000.0) / 1000.0; }

Location WhereOfRow(const DetectContext& ctx, int32_t row) {
  Location loc;
  loc.rank = ctx.store.rank;
  if (row < 0) return loc;
  analysis::UserSite site = analysis::UserSiteOf(ctx.store, ctx.tree, row, ctx.frames);
  if (site.valid()) {
    loc.file = std::move(site.file);
    loc.line = site.line;
    loc.def_line = site.def_line;
    loc.function = std::move(site.function);
  }
  loc.inside = std::move(site.inside);
  if (ctx.store.kind[row] == trace::EventKind::kCpuOp) {
    loc.op = std::string(ctx.store.name_of(row));
  } else {
    const int32_t op = ctx.tree.Enclosing(ctx.store, row, trace::EventKind::kCpuOp);
    if (op >= 0) loc.op = std::string(ctx.store.name_of(op));
  }
  return loc;
}

TracePoint PointOfRow(const DetectContext& ctx, int32_t row) {
  const auto& st = ctx.store;
  TracePoint p;
  p.pid = st.pid[row];
  p.tid = st.tid[row];
  if (p.pid >= trace::kTextIdBase) {
    auto it = st.process_names.find(p.pid);
    if (it != st.process_names.end()) p.pid_text = it->second;
  }
  if (p.tid >= trace::kTextIdBase) {
    auto it = st.thread_names.find(p.tid);
    if (it != st.thread_names.end()) p.tid_text = it->second;
  }
  p.ts_ns = st.ts_ns[row] + st.dur_ns[row] / 2;
  return p;
}

void AddMark(const DetectContext& ctx, Finding& f, std::string what, int64_t start_ns,
             int64_t end_ns, int32_t row) {
  if (f.marks.size() >= kMaxMarks) return;
  Mark m;
  m.what = std::move(what);
  m.start_ns = start_ns;
  m.end_ns = std::max(end_ns, start_ns);
  if (row != trace::kNoRow) m.at = PointOfRow(ctx, row);
  f.marks.push_back(std::move(m));
}

bool IsTransferOutsideSync(const DetectContext& ctx, const analysis::CopyRow& c) {
  if (c.direction != analysis::CopyDirection::kHtoD &&
      c.direction != analysis::CopyDirection::kDtoH) {
    return false;
  }
  const int32_t launch = ctx.store.launch_row[c.row];
  return launch == trace::kNoRow || !ctx.UnderSyncCause(launch);
}

}  // namespace fastenough::findings
