#include "fastenough/analysis/call_tree.h"

#include <algorithm>

namespace fastenough::analysis {

using trace::EventKind;
using trace::kNoRow;

int32_t CallTree::Enclosing(const trace::EventStore& store, int32_t row, EventKind kind) const {
  if (row < 0) return kNoRow;
  for (int32_t p = parent[row]; p != kNoRow; p = parent[p]) {
    if (store.kind[p] == kind) return p;
  }
  return kNoRow;
}

CallTree BuildCallTree(const trace::EventStore& store) {
  CallTree t;
  const size_t n = store.size();
  t.parent.assign(n, kNoRow);
  t.launches_device.assign(n, 0);
  // Sort compact keys, not row ids with a comparator that gathers four
  // columns per comparison (cache misses dominate on large traces).
  struct Key {
    int64_t pid, tid, ts, neg_dur;
    uint32_t row;
    bool operator<(const Key& o) const {
      if (pid != o.pid) return pid < o.pid;
      if (tid != o.tid) return tid < o.tid;
      if (ts != o.ts) return ts < o.ts;
      if (neg_dur != o.neg_dur) return neg_dur < o.neg_dur;
      return row < o.row;
    }
  };
  std::vector<Key> keys;
  for (size_t i = 0; i < n; ++i) {
    if (!IsHostSlice(store.kind[i])) continue;
    keys.push_back({store.pid[i], store.tid[i], store.ts_ns[i], -store.dur_ns[i],
                    static_cast<uint32_t>(i)});
  }
  // Readers keep file order, which is nearly sorted per thread already.
  // Merge sort: introsort degrades to heapsort on these nearly sorted runs.
  if (!std::is_sorted(keys.begin(), keys.end())) std::stable_sort(keys.begin(), keys.end());
  t.host_order.reserve(keys.size());
  for (const Key& k : keys) t.host_order.push_back(k.row);
  keys = {};
  // One stack walk per thread: pop what ended before this slice starts.
  std::vector<uint32_t> stack;
  for (size_t k = 0; k < t.host_order.size(); ++k) {
    const uint32_t r = t.host_order[k];
    if (k > 0) {
      const uint32_t prev = t.host_order[k - 1];
      if (store.pid[prev] != store.pid[r] || store.tid[prev] != store.tid[r]) stack.clear();
    }
    while (!stack.empty() && store.end_ns(stack.back()) <= store.ts_ns[r]) stack.pop_back();
    // Zero-length slices at the parent's end: still inside only if start < end.
    if (!stack.empty()) t.parent[r] = static_cast<int32_t>(stack.back());
    stack.push_back(r);
  }
  // A runtime call with device work marks every enclosing cpu op.
  for (size_t i = 0; i < n; ++i) {
    const EventKind k = store.kind[i];
    if (!trace::IsDeviceActivity(k)) continue;
    int32_t launch = store.launch_row.empty() ? kNoRow : store.launch_row[i];
    int32_t start = launch != kNoRow ? launch
                    : (store.cpu_op_row.empty() ? kNoRow : store.cpu_op_row[i]);
    for (int32_t p = start; p != kNoRow; p = t.parent[p]) {
      if (t.launches_device[p]) break;
      t.launches_device[p] = 1;
    }
  }
  return t;
}

}  // namespace fastenough::analysis
