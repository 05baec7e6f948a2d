#include "fastenough/analysis/critical_path.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "fastenough/analysis/device_breakdown.h"
#include "fastenough/analysis/op_roles.h"

namespace fastenough::analysis {

using trace::EventKind;
using trace::EventStore;
using trace::kNoRow;

const char* PathKindName(PathKind k) {
  switch (k) {
    case PathKind::kHost: return "host";
    case PathKind::kDevice: return "device";
    case PathKind::kLaunchDelay: return "launch_delay";
    case PathKind::kKernelGap: return "kernel_gap";
  }
  return "host";
}

namespace {

// (device, stream) as a hash key: lookups by stream stay O(1) whatever the
// number of devices (a trace of 100k devices took 59 s through flat lists).
struct StreamKeyHash {
  size_t operator()(const std::pair<int32_t, int64_t>& k) const {
    return std::hash<int64_t>()(k.second * 1000003 + k.first);
  }
};

enum class EdgeKind : uint8_t { kHost, kDependency, kDevice, kLaunch, kGap, kSync };

struct Edge {
  uint32_t src;
  uint32_t dst;
  int32_t row;  // attributed event (kNoRow: none)
  EdgeKind kind;
  bool zero;    // weight 0 whatever the times
};

constexpr uint32_t kNoNode = UINT32_MAX;

bool IsHostKind(EventKind k) {
  return k == EventKind::kCpuOp || k == EventKind::kRuntime || k == EventKind::kDriver;
}

// Node ids are 2 * local (start) and 2 * local + 1 (end), local being the
// event's index among the rows inside the window: the path's tables are sized
// by the window, not by the whole trace.
class Graph {
 public:
  Graph(const EventStore& s, int64_t lo, int64_t hi) : s_(s), lo_(lo), hi_(hi) {}

  void Build();
  // Longest path; false on a cycle.
  bool LongestPath(std::vector<uint32_t>* path_edges);

  int64_t Ts(uint32_t node) const {
    const size_t r = rows_[node >> 1];
    return (node & 1) ? s_.end_ns(r) : s_.ts_ns[r];
  }
  int64_t Weight(const Edge& e) const {
    if (e.zero) return 0;
    return std::max<int64_t>(0, Ts(e.dst) - Ts(e.src));
  }
  const EventStore& s_;
  int64_t lo_, hi_;
  std::vector<uint32_t> rows_;  // local -> row
  std::vector<int32_t> local_;  // row -> local, -1 outside the window
  int64_t graph_rows_ = 0;
  std::vector<Edge> edges_;
  bool cuda_sync_ = false;

 private:
  uint32_t Start(int32_t row) const { return 2 * static_cast<uint32_t>(local_[static_cast<size_t>(row)]); }
  uint32_t End(int32_t row) const { return 2 * static_cast<uint32_t>(local_[static_cast<size_t>(row)]) + 1; }
  bool InGraph(int32_t row) const { return row != kNoRow && local_[static_cast<size_t>(row)] >= 0; }
  void Add(uint32_t src, uint32_t dst, EdgeKind kind, int32_t row, bool zero = false) {
    edges_.push_back({src, dst, row, kind, zero});
  }
  int32_t RowOfNode(uint32_t node) const { return static_cast<int32_t>(rows_[node >> 1]); }
  void BuildHost();
  void BuildDevice();
};

void Graph::Build() {
  local_.assign(s_.size(), -1);
  for (size_t i = 0; i < s_.size(); ++i) {
    const EventKind k = s_.kind[i];
    if (k == EventKind::kDeviceSync) cuda_sync_ = true;
    if (!IsHostKind(k) && !trace::IsDeviceActivity(k)) continue;
    if (s_.ts_ns[i] < lo_ || s_.end_ns(i) > hi_) continue;
    local_[i] = static_cast<int32_t>(rows_.size());
    rows_.push_back(static_cast<uint32_t>(i));
  }
  graph_rows_ = static_cast<int64_t>(rows_.size());
  edges_.reserve(static_cast<size_t>(graph_rows_) * 5 / 2);
  BuildHost();
  BuildDevice();
}

void Graph::BuildHost() {
  // One thread's call stack, walked depth first in start order (HTA's
  // _construct_graph_from_call_stack): consecutive nodes are joined; a
  // top-level op's end joins the next top-level op's start with weight 0.
  // Threads first (a stable counting sort keeps file order inside a thread,
  // which is nearly time order), then each thread's run by (start, longer
  // first) only where it is not sorted yet.
  struct Key {
    int64_t ts, neg_dur;
    uint32_t row;
    bool operator<(const Key& o) const { return std::tie(ts, neg_dur, row) < std::tie(o.ts, o.neg_dur, o.row); }
  };
  std::map<std::pair<int64_t, int64_t>, uint32_t> thread_index;
  std::vector<uint32_t> thread_of;
  std::vector<uint32_t> host_rows;
  int64_t last_pid = 0, last_tid = 0;
  uint32_t last_thread = UINT32_MAX;
  for (const uint32_t r : rows_) {
    if (!IsHostKind(s_.kind[r])) continue;
    if (last_thread == UINT32_MAX || s_.pid[r] != last_pid || s_.tid[r] != last_tid) {
      last_pid = s_.pid[r];
      last_tid = s_.tid[r];
      last_thread = thread_index.emplace(std::make_pair(last_pid, last_tid),
                                         static_cast<uint32_t>(thread_index.size()))
                        .first->second;
    }
    host_rows.push_back(r);
    thread_of.push_back(last_thread);
  }
  // Thread order by (pid, tid), as the map orders them.
  std::vector<uint32_t> rank_of(thread_index.size());
  {
    uint32_t n = 0;
    for (const auto& [key, idx] : thread_index) rank_of[idx] = n++;
  }
  std::vector<uint32_t> start(thread_index.size() + 1, 0);
  for (uint32_t t : thread_of) ++start[rank_of[t] + 1];
  for (size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  std::vector<Key> keys(host_rows.size());
  {
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (size_t i = 0; i < host_rows.size(); ++i) {
      const uint32_t r = host_rows[i];
      keys[fill[rank_of[thread_of[i]]]++] = {s_.ts_ns[r], -s_.dur_ns[r], r};
    }
  }
  for (size_t t = 0; t + 1 < start.size(); ++t) {
    auto b = keys.begin() + start[t], e = keys.begin() + start[t + 1];
    if (!std::is_sorted(b, e)) std::sort(b, e);
  }
  host_rows = {};
  thread_of = {};
  std::vector<int8_t> blocking(s_.strings().size(), -1);
  std::vector<int32_t> stack;
  uint32_t last_node = kNoNode, last_top = kNoNode;
  int32_t last_parent = kNoRow;
  // HTA's _attribute_edge: (start, *) -> src event; (end, end) -> dst event;
  // (end, start) -> the parent both lie in.
  auto attribute = [&](uint32_t src, uint32_t dst) -> int32_t {
    if (src % 2 == 0) return RowOfNode(src);
    if (dst % 2 == 1) return RowOfNode(dst);
    return last_parent;
  };
  auto exit_top = [&] {
    const int32_t r = stack.back();
    stack.pop_back();
    int8_t& b = blocking[s_.name[r]];
    if (b < 0) b = IsBlockingCallName(s_.name_of(r)) ? 1 : 0;
    if (last_node != kNoNode) Add(last_node, End(r), EdgeKind::kHost, attribute(last_node, End(r)), b == 1);
    if (stack.empty()) {
      last_node = kNoNode;
      last_top = End(r);
    } else {
      last_node = End(r);
      last_parent = stack.back();
    }
  };
  for (size_t k = 0; k < keys.size(); ++k) {
    const auto r = static_cast<int32_t>(keys[k].row);
    const auto prev = k > 0 ? keys[k - 1].row : 0;
    if (k > 0 && (s_.pid[prev] != s_.pid[r] || s_.tid[prev] != s_.tid[r])) {
      while (!stack.empty()) exit_top();
      last_node = last_top = kNoNode;
      last_parent = kNoRow;
    }
    while (!stack.empty() && s_.end_ns(stack.back()) <= s_.ts_ns[r]) exit_top();
    if (stack.empty() && last_top != kNoNode) Add(last_top, Start(r), EdgeKind::kDependency, kNoRow, true);
    if (last_node != kNoNode) Add(last_node, Start(r), EdgeKind::kHost, attribute(last_node, Start(r)));
    last_node = Start(r);
    last_parent = stack.empty() ? kNoRow : stack.back();
    stack.push_back(r);
  }
  while (!stack.empty()) exit_top();
}

void Graph::BuildDevice() {
  // Device ops in start order, sync rows at their end (HTA sorts a cuda_sync
  // by its end: a Stream Sync overlaps the copy it waits for).
  struct Item {
    int64_t t;
    uint32_t row;
  };
  std::vector<Item> items;
  std::vector<int8_t> blocking(s_.strings().size(), -1);
  auto is_blocking = [&](size_t r) {
    int8_t& bl = blocking[s_.name[r]];
    if (bl < 0) {
      const std::string_view n = s_.name_of(r);
      bl = IsBlockingCallName(n) && n.find("EventQuery") == std::string_view::npos ? 1 : 0;
    }
    return bl == 1;
  };
  for (const uint32_t r : rows_) {
    if (trace::IsDeviceActivity(s_.kind[r])) items.push_back({s_.ts_ns[r], r});
  }
  if (cuda_sync_) {
    for (size_t i = 0; i < s_.size(); ++i) {
      if (s_.kind[i] == EventKind::kDeviceSync && s_.end_ns(i) >= lo_ && s_.end_ns(i) <= hi_) {
        items.push_back({s_.end_ns(i), static_cast<uint32_t>(i)});
      }
    }
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.t != b.t ? a.t < b.t : a.row < b.row;
  });

  // Event syncs need, per (device, stream), the launches in time order and
  // the cudaEventRecord calls by correlation (over the whole trace).
  std::map<std::pair<int32_t, int64_t>, std::vector<std::pair<int64_t, uint32_t>>> launches;
  std::unordered_map<int64_t, int32_t> record_by_corr;
  std::unordered_map<uint32_t, int64_t> wait_stream, record_corr;
  if (!s_.sync_waits.empty()) {
    for (const auto& w : s_.sync_waits) {
      wait_stream[w.row] = w.wait_on_stream;
      record_corr[w.row] = w.record_correlation;
    }
    for (size_t i = 0; i < s_.size(); ++i) {
      if (trace::IsDeviceActivity(s_.kind[i]) && s_.launch_row[i] != kNoRow) {
        launches[{s_.device[i], s_.stream[i]}].push_back({s_.ts_ns[s_.launch_row[i]], static_cast<uint32_t>(i)});
      } else if ((s_.kind[i] == EventKind::kRuntime || s_.kind[i] == EventKind::kDriver) &&
                 s_.correlation[i] != trace::kNone) {
        const std::string_view n = s_.name_of(i);
        if (n == "cudaEventRecord" || n == "hipEventRecord" || n == "cuEventRecord") {
          record_by_corr[s_.correlation[i]] = static_cast<int32_t>(i);
        }
      }
    }
    for (auto& [key, v] : launches) std::stable_sort(v.begin(), v.end());
  }
  // The device op launched last on (device, stream) at or before t.
  auto launched_before = [&](int32_t device, int64_t stream, int64_t t) -> int32_t {
    auto it = launches.find({device, stream});
    if (it == launches.end()) return kNoRow;
    auto& v = it->second;
    auto p = std::upper_bound(v.begin(), v.end(), std::make_pair(t, UINT32_MAX));
    return p == v.begin() ? kNoRow : static_cast<int32_t>(std::prev(p)->second);
  };
  auto record_source = [&](uint32_t sync_row) -> int32_t {
    auto ws = wait_stream.find(sync_row);
    auto rc = record_corr.find(sync_row);
    if (ws == wait_stream.end() || rc == record_corr.end()) return kNoRow;
    auto rec = record_by_corr.find(rc->second);
    if (rec == record_by_corr.end()) return kNoRow;
    return launched_before(s_.device[sync_row], ws->second, s_.ts_ns[rec->second]);
  };

  // (device, stream) -> end node of its last op. Streams are usually few,
  // but a trace may hold 100k devices: found by hash, kept in first-seen
  // order for the syncs that visit every stream of a device.
  struct LastEnd {
    int32_t device;
    int64_t stream;
    uint32_t node;
  };
  std::vector<LastEnd> last_end;
  std::unordered_map<std::pair<int32_t, int64_t>, size_t, StreamKeyHash> last_end_at;
  auto find_last = [&](int32_t device, int64_t stream) -> LastEnd* {
    auto it = last_end_at.find({device, stream});
    return it == last_end_at.end() ? nullptr : &last_end[it->second];
  };
  std::unordered_map<uint32_t, int32_t> kernel_sync;  // dest row -> source row
  std::unordered_map<int32_t, int32_t> own_last;     // blocking call -> its device op ending last
  for (const Item& it : items) {
    const uint32_t r = it.row;
    const int32_t dev = s_.device[r];
    if (s_.kind[r] == EventKind::kDeviceSync) {
      const int32_t call = s_.launch_row[r];
      const std::string_view name = s_.name_of(r);
      if (name == "Stream Sync" || name == "Context Sync") {
        if (!InGraph(call)) continue;
        for (const LastEnd& l : last_end) {
          if (l.device != dev || (name == "Stream Sync" && l.stream != s_.stream[r])) continue;
          Add(l.node, End(call), EdgeKind::kSync, kNoRow, true);
        }
      } else if (name == "Event Sync") {
        const int32_t src = record_source(r);
        if (InGraph(src) && InGraph(call)) Add(End(src), End(call), EdgeKind::kSync, kNoRow, true);
      } else if (name == "Stream Wait Event") {
        const int32_t src = record_source(r);
        if (!InGraph(src) || call == kNoRow) continue;
        // The next op launched on the waiting stream from the same thread.
        auto lit = launches.find({dev, s_.stream[r]});
        if (lit == launches.end()) continue;
        for (auto p = std::upper_bound(lit->second.begin(), lit->second.end(),
                                       std::make_pair(s_.ts_ns[call], UINT32_MAX));
             p != lit->second.end(); ++p) {
          const int32_t l = s_.launch_row[p->second];
          if (s_.pid[l] == s_.pid[call] && s_.tid[l] == s_.tid[call]) {
            kernel_sync[p->second] = src;
            break;
          }
        }
      }
      continue;
    }
    const auto row = static_cast<int32_t>(r);
    Add(Start(row), End(row), EdgeKind::kDevice, row);
    int64_t sync_end = INT64_MIN;
    bool has_sync = false;
    if (!kernel_sync.empty()) {
      if (auto ks = kernel_sync.find(r); ks != kernel_sync.end()) {
        if (InGraph(ks->second)) {
          Add(End(ks->second), Start(row), EdgeKind::kSync, kNoRow, true);
          sync_end = s_.end_ns(ks->second);
          has_sync = true;
        }
        kernel_sync.erase(ks);
      }
    }
    LastEnd* prev = find_last(dev, s_.stream[r]);
    const int32_t l = s_.launch_row[r];
    if (InGraph(l) && (prev == nullptr || Ts(prev->node) < s_.ts_ns[l]) &&
        (!has_sync || sync_end < s_.ts_ns[l])) {
      Add(Start(l), Start(row), EdgeKind::kLaunch, row);
    } else if (prev != nullptr && (!has_sync || sync_end < Ts(prev->node))) {
      Add(prev->node, Start(row), EdgeKind::kGap, row);
    }
    if (prev != nullptr) {
      prev->node = End(row);
    } else {
      last_end_at.emplace(std::make_pair(dev, s_.stream[r]), last_end.size());
      last_end.push_back({dev, s_.stream[r], End(row)});
    }
    if (InGraph(l) && is_blocking(static_cast<size_t>(l))) {
      auto [o, inserted] = own_last.emplace(l, row);
      if (!inserted && s_.end_ns(o->second) < s_.end_ns(r)) o->second = row;
    }
  }

  // Blocking calls without a cuda_sync row: a copy call waits for its own
  // copy; in a trace without cuda_sync events a sync call waits for the
  // device op that finished last before it returned.
  std::vector<std::pair<int64_t, uint32_t>> device_ends;  // (end, row)
  if (!cuda_sync_) {
    for (const Item& it : items) device_ends.push_back({s_.end_ns(it.row), it.row});
    std::sort(device_ends.begin(), device_ends.end());
  }
  for (const uint32_t b : rows_) {
    if (s_.kind[b] != EventKind::kRuntime && s_.kind[b] != EventKind::kDriver) continue;
    if (!is_blocking(b)) continue;
    const auto call = static_cast<int32_t>(b);
    if (auto own = own_last.find(call); own != own_last.end()) {
      if (s_.end_ns(own->second) <= s_.end_ns(b)) Add(End(own->second), End(call), EdgeKind::kSync, kNoRow, true);
      continue;
    }
    if (cuda_sync_) continue;
    auto p = std::upper_bound(device_ends.begin(), device_ends.end(), std::make_pair(s_.end_ns(b), UINT32_MAX));
    if (p == device_ends.begin()) continue;
    --p;
    if (p->first > s_.ts_ns[b]) Add(End(static_cast<int32_t>(p->second)), End(call), EdgeKind::kSync, kNoRow, true);
  }
}

bool Graph::LongestPath(std::vector<uint32_t>* path_edges) {
  const size_t n = 2 * rows_.size();
  std::vector<uint32_t> offset(n + 1, 0), indeg(n, 0);
  for (const Edge& e : edges_) {
    ++offset[e.src + 1];
    ++indeg[e.dst];
  }
  for (size_t i = 0; i < n; ++i) offset[i + 1] += offset[i];
  std::vector<uint32_t> adj(edges_.size());
  {
    std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
    for (uint32_t e = 0; e < edges_.size(); ++e) adj[fill[edges_[e].src]++] = e;
  }
  // Kahn's order over the nodes that have edges (isolated nodes cannot be on a path).
  std::vector<uint32_t> order;
  size_t with_edges = 0;
  for (uint32_t v = 0; v < n; ++v) {
    if (offset[v + 1] == offset[v] && indeg[v] == 0) continue;
    ++with_edges;
    if (indeg[v] == 0) order.push_back(v);
  }
  std::vector<int64_t> dist(n, 0);
  std::vector<uint32_t> pred(n, UINT32_MAX);
  for (size_t q = 0; q < order.size(); ++q) {
    const uint32_t u = order[q];
    for (uint32_t k = offset[u]; k < offset[u + 1]; ++k) {
      const Edge& e = edges_[adj[k]];
      const int64_t cand = dist[u] + Weight(e);
      if (cand > dist[e.dst]) {
        dist[e.dst] = cand;
        pred[e.dst] = adj[k];
      }
      if (--indeg[e.dst] == 0) order.push_back(e.dst);
    }
  }
  if (order.size() != with_edges) return false;
  if (order.empty()) return true;
  // The end of the path: the longest distance; ties go to the later node.
  uint32_t best = order.front();
  for (uint32_t v : order) {
    if (dist[v] > dist[best] || (dist[v] == dist[best] && Ts(v) > Ts(best))) best = v;
  }
  for (uint32_t v = best; pred[v] != UINT32_MAX; v = edges_[pred[v]].src) path_edges->push_back(pred[v]);
  std::reverse(path_edges->begin(), path_edges->end());
  return true;
}

void AddClipped(const timeline::Interval& iv, int64_t lo, int64_t hi, int64_t* out) {
  const int64_t a = std::max(iv.start, lo), b = std::min(iv.end, hi);
  if (b > a) *out += b - a;
}

}  // namespace

CriticalPath AnalyzeCriticalPath(const EventStore& s, const std::vector<timeline::StepWindow>& all_steady) {
  CriticalPath cp;
  cp.steady_steps = static_cast<int64_t>(all_steady.size());
  if (all_steady.empty()) return cp;
  const std::vector<timeline::StepWindow> steady(
      all_steady.begin(), all_steady.begin() + static_cast<long>(std::min(all_steady.size(), kCriticalPathMaxSteps)));
  cp.window_start_ns = steady.front().start_ns;
  cp.window_end_ns = steady.back().end_ns;
  for (const auto& w : steady) cp.window_ns += w.dur_ns();
  for (const auto& w : steady) {
    CriticalPathStep st;
    st.number = w.number;
    st.start_ns = w.start_ns;
    st.end_ns = w.end_ns;
    cp.steps.push_back(st);
  }
  Graph g(s, cp.window_start_ns, cp.window_end_ns);
  g.Build();
  cp.cuda_sync_events = g.cuda_sync_;
  cp.node_count = 2 * g.graph_rows_;
  cp.edge_count = static_cast<int64_t>(g.edges_.size());
  if (g.graph_rows_ == 0) return cp;
  std::vector<uint32_t> path;
  if (!g.LongestPath(&path)) {
    cp.status = "cycle";
    return cp;
  }
  cp.status = "ok";

  // Segments, and the blocking calls the path enters through a sync edge.
  std::vector<timeline::Interval> sync_calls;
  std::vector<timeline::Interval> seg_ivs;
  for (uint32_t e : path) {
    const Edge& edge = g.edges_[e];
    if (edge.kind == EdgeKind::kSync && edge.dst % 2 == 1) {
      const uint32_t call = g.rows_[edge.dst / 2];
      if (!trace::IsDeviceActivity(s.kind[call])) sync_calls.push_back({s.ts_ns[call], s.end_ns(call)});
    }
    const int64_t w = g.Weight(edge);
    if (w <= 0) continue;
    PathSegment seg;
    seg.start_ns = g.Ts(edge.src);
    seg.end_ns = g.Ts(edge.dst);
    seg.row = edge.row;
    switch (edge.kind) {
      case EdgeKind::kDevice: seg.kind = PathKind::kDevice; break;
      case EdgeKind::kLaunch: seg.kind = PathKind::kLaunchDelay; break;
      case EdgeKind::kGap: seg.kind = PathKind::kKernelGap; break;
      default: seg.kind = PathKind::kHost; break;
    }
    cp.segments.push_back(seg);
    seg_ivs.push_back({seg.start_ns, seg.end_ns});
  }
  if (std::is_sorted(seg_ivs.begin(), seg_ivs.end(),
                     [](const auto& a, const auto& b) { return a.start < b.start; })) {
    for (const auto& iv : seg_ivs) cp.on_path.AppendSorted(iv);
  } else {
    cp.on_path = timeline::IntervalSet::FromUnsorted(std::move(seg_ivs));
  }
  const timeline::IntervalSet sync_set =
      timeline::Intersect(cp.on_path, timeline::IntervalSet::FromUnsorted(std::move(sync_calls)));
  cp.sync_ns = sync_set.TotalLength();

  // Per stream and per (kind, name): flat tables, segments are many.
  std::vector<CriticalPathStream> streams;
  std::unordered_map<std::pair<int32_t, int64_t>, size_t, StreamKeyHash> stream_at;
  auto stream_of = [&](size_t r) -> CriticalPathStream& {
    auto [it, inserted] = stream_at.emplace(std::make_pair(s.device[r], s.stream[r]), streams.size());
    if (!inserted) return streams[it->second];
    streams.push_back({});
    streams.back().device = s.device[r];
    streams.back().stream = s.stream[r];
    return streams.back();
  };
  static const char* const kItemKinds[] = {"host", "kernel", "memcpy", "memset", "launch_delay", "kernel_gap"};
  struct ItemAcc {
    int64_t ns = 0, count = 0;
  };
  std::vector<std::vector<int32_t>> item_index(6, std::vector<int32_t>());
  std::vector<std::pair<std::pair<int, StringId>, ItemAcc>> item_rows;
  auto item = [&](int kind, StringId name) -> ItemAcc& {
    auto& idx = item_index[static_cast<size_t>(kind)];
    if (idx.empty()) idx.assign(s.strings().size() + 1, -1);
    int32_t& i = idx[name];
    if (i < 0) {
      i = static_cast<int32_t>(item_rows.size());
      item_rows.push_back({{kind, name}, {}});
    }
    return item_rows[static_cast<size_t>(i)].second;
  };
  std::vector<int8_t> comm(s.strings().size(), -1);
  for (const PathSegment& seg : cp.segments) {
    const int64_t w = seg.end_ns - seg.start_ns;
    cp.length_ns += w;
    int kind = 0;
    if (seg.kind == PathKind::kHost) {
      cp.host_ns += w;
    } else {
      const auto r = static_cast<size_t>(seg.row);
      CriticalPathStream& st = stream_of(r);
      if (seg.kind == PathKind::kDevice) {
        cp.device_ns += w;
        if (s.kind[r] == EventKind::kMemcpy) {
          st.memcpy_ns += w;
          kind = 2;
        } else if (s.kind[r] == EventKind::kMemset) {
          st.memset_ns += w;
          kind = 3;
        } else {
          int8_t& c = comm[s.name[r]];
          if (c < 0) c = IsCommunicationKernel(s, r) ? 1 : 0;
          (c ? st.comm_ns : st.compute_ns) += w;
          kind = 1;
        }
      } else if (seg.kind == PathKind::kLaunchDelay) {
        cp.launch_delay_ns += w;
        st.launch_delay_ns += w;
        kind = 4;
      } else {
        cp.kernel_gap_ns += w;
        st.kernel_gap_ns += w;
        kind = 5;
      }
    }
    ItemAcc& it = item(kind, seg.row >= 0 ? s.name[static_cast<size_t>(seg.row)] : kNoString);
    it.ns += w;
    ++it.count;
  }
  std::sort(streams.begin(), streams.end(), [](const auto& a, const auto& b) {
    return std::tie(a.device, a.stream) < std::tie(b.device, b.stream);
  });
  cp.streams = std::move(streams);
  for (const auto& [key, v] : item_rows) {
    cp.top.push_back({kItemKinds[key.first], std::string(s.strings().Get(key.second)), v.ns, v.count});
  }
  std::sort(cp.top.begin(), cp.top.end(), [](const CriticalPathItem& a, const CriticalPathItem& b) {
    if (a.ns != b.ns) return a.ns > b.ns;
    return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
  });
  if (cp.top.size() > kCriticalPathTop) cp.top.resize(kCriticalPathTop);

  // Per steady window (disjoint, in time order): each segment adds to the
  // windows it overlaps.
  for (const PathSegment& seg : cp.segments) {
    auto it = std::upper_bound(cp.steps.begin(), cp.steps.end(), seg.start_ns,
                               [](int64_t t, const CriticalPathStep& st) { return t < st.end_ns; });
    for (; it != cp.steps.end() && it->start_ns < seg.end_ns; ++it) {
      int64_t* slot = seg.kind == PathKind::kHost          ? &it->host_ns
                      : seg.kind == PathKind::kDevice      ? &it->device_ns
                      : seg.kind == PathKind::kLaunchDelay ? &it->launch_delay_ns
                                                           : &it->kernel_gap_ns;
      AddClipped({seg.start_ns, seg.end_ns}, it->start_ns, it->end_ns, slot);
    }
  }
  for (CriticalPathStep& st : cp.steps) {
    st.path_ns = st.host_ns + st.device_ns + st.launch_delay_ns + st.kernel_gap_ns;
    st.sync_ns = sync_set.LengthWithin(st.start_ns, st.end_ns);
  }
  return cp;
}

int64_t CriticalPathOverlap(const CriticalPath& path, const timeline::IntervalSet& covered) {
  return timeline::Intersect(path.on_path, covered).TotalLength();
}

}  // namespace fastenough::analysis
