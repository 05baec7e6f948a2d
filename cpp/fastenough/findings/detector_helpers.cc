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
  const analysis::PythonFrame f = analysis::UserFrameOf(ctx.store, ctx.tree, row);
  if (f.valid()) {
    loc.file = f.file;
    loc.line = f.line;
    loc.function = f.function;
  }
  if (ctx.store.kind[row] == trace::EventKind::kCpuOp) {
    loc.op = std::string(ctx.store.name_of(row));
  } else {
    const int32_t op = ctx.tree.Enclosing(ctx.store, row, trace::EventKind::kCpuOp);
    if (op >= 0) loc.op = std::string(ctx.store.name_of(op));
  }
  return loc;
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
