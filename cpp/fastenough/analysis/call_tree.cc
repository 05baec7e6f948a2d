#include "fastenough/analysis/call_tree.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace fastenough::analysis {

namespace {

// How far a slice may stick out of the slice it starts in and still be its
// callee (clock jitter between Kineto's and the Python tracer's clocks).
constexpr int64_t kNestingJitterNs = 2000;

}  // namespace

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
  // Host rows in (pid, tid, start, longer first, row) order. Rows are first
  // grouped by thread (a counting sort over the threads in (pid, tid) order,
  // keeping file order inside each), then each thread's rows are sorted by
  // (start, longer first, row) only if file order is not that already:
  // readers keep file order, which is sorted or nearly so per thread. The
  // order is total (row breaks ties), so it is the one a sort of the whole
  // key gives.
  struct Thread {
    int64_t pid, tid;
    size_t count = 0;
  };
  std::vector<Thread> threads;
  std::vector<uint32_t> thread_of(n, 0);
  {
    std::unordered_map<int64_t, std::unordered_map<int64_t, uint32_t>> ids;
    int64_t last_pid = 0, last_tid = 0;
    uint32_t last = UINT32_MAX;
    for (size_t i = 0; i < n; ++i) {
      if (!IsHostSlice(store.kind[i])) continue;
      const int64_t pid = store.pid[i], tid = store.tid[i];
      if (last == UINT32_MAX || pid != last_pid || tid != last_tid) {
        auto [it, inserted] = ids[pid].try_emplace(tid, static_cast<uint32_t>(threads.size()));
        if (inserted) threads.push_back({pid, tid});
        last = it->second;
        last_pid = pid;
        last_tid = tid;
      }
      thread_of[i] = last;
      ++threads[last].count;
    }
  }
  std::vector<uint32_t> by_pid_tid(threads.size());
  for (uint32_t k = 0; k < by_pid_tid.size(); ++k) by_pid_tid[k] = k;
  std::sort(by_pid_tid.begin(), by_pid_tid.end(), [&](uint32_t a, uint32_t b) {
    if (threads[a].pid != threads[b].pid) return threads[a].pid < threads[b].pid;
    return threads[a].tid < threads[b].tid;
  });
  std::vector<size_t> begin(threads.size() + 1, 0);
  {
    size_t at = 0;
    for (uint32_t k : by_pid_tid) {
      begin[k] = at;
      at += threads[k].count;
    }
    t.host_order.resize(at);
  }
  {
    std::vector<size_t> next(begin.begin(), begin.end() - 1);
    for (size_t i = 0; i < n; ++i) {
      if (!IsHostSlice(store.kind[i])) continue;
      t.host_order[next[thread_of[i]]++] = static_cast<uint32_t>(i);
    }
  }
  thread_of = {};
  struct Key {
    int64_t ts, neg_dur;
    uint32_t row;
    bool operator<(const Key& o) const {
      if (ts != o.ts) return ts < o.ts;
      if (neg_dur != o.neg_dur) return neg_dur < o.neg_dur;
      return row < o.row;
    }
  };
  std::vector<Key> keys;
  for (uint32_t k = 0; k < threads.size(); ++k) {
    const auto first = t.host_order.begin() + static_cast<std::ptrdiff_t>(begin[k]);
    const auto last = first + static_cast<std::ptrdiff_t>(threads[k].count);
    // Rows ascend inside a thread, so (start, longer first) decides.
    const bool sorted = std::is_sorted(first, last, [&](uint32_t a, uint32_t b) {
      if (store.ts_ns[a] != store.ts_ns[b]) return store.ts_ns[a] < store.ts_ns[b];
      return store.dur_ns[a] > store.dur_ns[b];
    });
    if (sorted) continue;
    keys.clear();
    for (auto it = first; it != last; ++it) keys.push_back({store.ts_ns[*it], -store.dur_ns[*it], *it});
    std::sort(keys.begin(), keys.end());
    auto out = first;
    for (const Key& key : keys) *out++ = key.row;
  }
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
    // A slice that outlives the slice it starts in by more than clock jitter
    // is not its callee: torch's profiler opens an annotation inside
    // _record_function_enter_new and closes it later (a ProfilerStep begun by
    // profiler.step() in an optimizer hook spans the next step; the
    // DataLoader's enumerate(...) annotation spans the fetch). Its parent is
    // the innermost open slice that encloses it, and it goes into the stack
    // right above that one: the slices above keep their parents and close
    // first, and what starts after them nests under it. Before, the whole
    // next step nested under the hook's call chain, and the DataLoader's wait
    // was placed at the user's `opt.step()` line (DLRM, ema_deepcopy).
    size_t at = stack.size();
    const int64_t end = store.end_ns(r);
    while (at > 0 && store.end_ns(stack[at - 1]) + kNestingJitterNs < end) --at;
    if (at > 0) t.parent[r] = static_cast<int32_t>(stack[at - 1]);
    stack.insert(stack.begin() + static_cast<std::ptrdiff_t>(at), r);
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
