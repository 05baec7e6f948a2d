#include "fastenough/analysis/syncs.h"

#include <algorithm>

namespace fastenough::analysis {

using trace::EventKind;
using trace::kNoRow;

bool IsSyncCall(std::string_view n) {
  return n == "cudaStreamSynchronize" || n == "cudaDeviceSynchronize" ||
         n == "cudaEventSynchronize" || n == "cudaMemcpy" || n == "cuStreamSynchronize" ||
         n == "cuCtxSynchronize" || n == "cuEventSynchronize" || n == "hipStreamSynchronize" ||
         n == "hipDeviceSynchronize" || n == "hipEventSynchronize" || n == "hipMemcpy";
}

bool IsSyncingOp(std::string_view n) {
  return n == "aten::item" || n == "aten::_local_scalar_dense" || n == "aten::nonzero" ||
         n == "aten::unique" || n == "aten::_unique2" || n == "aten::unique_consecutive" ||
         n == "aten::is_nonzero" || n == "aten::to" || n == "aten::_to_copy" ||
         n == "aten::copy_" || n == "aten::masked_select" || n == "aten::tolist" ||
         n == "aten::cpu" || n == "aten::equal" || n == "aten::allclose";
}

namespace {

timeline::Interval HoleAt(const timeline::IntervalSet& busy, int64_t t) {
  const auto& v = busy.intervals();
  // First interval that ends after t.
  auto it = std::upper_bound(v.begin(), v.end(), t,
                             [](int64_t x, const timeline::Interval& iv) { return x < iv.end; });
  if (it != v.end() && it->start <= t) return {t, t};  // busy at t: no hole
  const int64_t lo = it == v.begin() ? t : std::prev(it)->end;
  const int64_t hi = it == v.end() ? t : it->start;  // no later work: not a loop hole
  if (it == v.begin() || it == v.end()) return {t, t};
  return {lo, hi};
}

}  // namespace

std::vector<SyncEvent> FindSyncs(const trace::EventStore& store, const CallTree& tree,
                                 const timeline::IntervalSet& busy) {
  std::vector<SyncEvent> out;
  // Sync names are few: decide per interned id.
  std::vector<uint8_t> sync_name(store.strings().size(), 0);
  for (StringId id = 1; id < store.strings().size(); ++id) {
    sync_name[id] = IsSyncCall(store.strings().Get(id)) ? 1 : 0;
  }
  for (size_t i = 0; i < store.size(); ++i) {
    const EventKind k = store.kind[i];
    if (k == EventKind::kDeviceSync) {
      // cuda_sync {"cuda_sync_kind": "Stream Sync"} comes with its runtime
      // call, counted there; alone (the call was not traced) it counts itself.
      const int32_t call = store.launch_row.empty() ? kNoRow : store.launch_row[i];
      if (call != kNoRow && sync_name[store.name[call]]) continue;
    } else if (k != EventKind::kRuntime && k != EventKind::kDriver) {
      continue;
    } else if (!sync_name[store.name[i]]) {
      continue;
    }
    SyncEvent s;
    s.row = static_cast<int32_t>(i);
    s.start_ns = store.ts_ns[i];
    s.end_ns = store.end_ns(i);
    // Outermost enclosing op that is a known cause; else the innermost op.
    int32_t innermost = kNoRow;
    // A device-side sync row has no host parent: start from its CPU op.
    const int32_t host = k == EventKind::kDeviceSync
                             ? (store.cpu_op_row.empty() ? kNoRow : store.cpu_op_row[i])
                             : static_cast<int32_t>(i);
    if (host != static_cast<int32_t>(i) && host != kNoRow) {
      innermost = host;
      if (IsSyncingOp(store.name_of(host))) s.cause_op = host;
    }
    for (int32_t p = host == kNoRow ? kNoRow : tree.parent[host]; p != kNoRow; p = tree.parent[p]) {
      if (store.kind[p] != EventKind::kCpuOp) continue;
      if (innermost == kNoRow) innermost = p;
      if (IsSyncingOp(store.name_of(p))) s.cause_op = p;
    }
    if (s.cause_op == kNoRow) s.cause_op = innermost;
    s.idle_after = HoleAt(busy, s.end_ns);
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(),
            [](const SyncEvent& a, const SyncEvent& b) { return a.start_ns < b.start_ns; });
  return out;
}

}  // namespace fastenough::analysis
