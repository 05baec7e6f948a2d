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

class Graph {
 public:
  Graph(const EventStore& s, int64_t lo, int64_t hi) : s_(s), lo_(lo), hi_(hi) {}

  void Build();
  // Longest path; false on a cycle.
  bool LongestPath(std::vector<uint32_t>* path_edges);

  int64_t Weight(const Edge& e) const {
    if (e.zero) return 0;
    return std::max<int64_t>(0, ts_[e.dst] - ts_[e.src]);
  }
  const EventStore& s_;
  int64_t lo_, hi_;
  std::vector<uint32_t> rows_;   // local event -> row
  std::vector<int32_t> local_;   // row -> local event, -1 outside the graph
  std::vector<int64_t> ts_;      // node -> time (2 nodes per event)
  std::vector<Edge> edges_;
  bool cuda_sync_ = false;

 private:
  uint32_t Start(uint32_t local) const { return 2 * local; }
  uint32_t End(uint32_t local) const { return 2 * local + 1; }
  uint32_t StartOfRow(int32_t row) const { return Start(static_cast<uint32_t>(local_[row])); }
  uint32_t EndOfRow(int32_t row) const { return End(static_cast<uint32_t>(local_[row])); }
  bool InGraph(int32_t row) const { return row != kNoRow && local_[row] >= 0; }
  void Add(uint32_t src, uint32_t dst, EdgeKind kind, int32_t row, bool zero = false) {
    edges_.push_back({src, dst, row, kind, zero});
  }
  int32_t RowOfNode(uint32_t node) const { return static_cast<int32_t>(rows_[node / 2]); }
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
    ts_.push_back(s_.ts_ns[i]);
    ts_.push_back(s_.end_ns(i));
  }
  edges_.reserve(rows_.size() * 5 / 2);
  BuildHost();
  BuildDevice();
}

void Graph::BuildHost() {
  // One thread's call stack, walked depth first in start order (HTA's
  // _construct_graph_from_call_stack): consecutive nodes are joined; a
  // top-level op's end joins the next top-level op's start with weight 0.
  struct Key {
    int64_t pid, tid, ts, neg_dur;
    uint32_t row;
    bool operator<(const Key& o) const {
      return std::tie(pid, tid, ts, neg_dur, row) < std::tie(o.pid, o.tid, o.ts, o.neg_dur, o.row);
    }
  };
  std::vector<Key> keys;
  for (uint32_t r : rows_) {
    if (IsHostKind(s_.kind[r])) keys.push_back({s_.pid[r], s_.tid[r], s_.ts_ns[r], -s_.dur_ns[r], r});
  }
  if (!std::is_sorted(keys.begin(), keys.end())) std::stable_sort(keys.begin(), keys.end());
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
    if (last_node != kNoNode) Add(last_node, EndOfRow(r), EdgeKind::kHost, attribute(last_node, EndOfRow(r)), b == 1);
    if (stack.empty()) {
      last_node = kNoNode;
      last_top = EndOfRow(r);
    } else {
      last_node = EndOfRow(r);
      last_parent = stack.back();
    }
  };
  for (size_t k = 0; k < keys.size(); ++k) {
    const auto r = static_cast<int32_t>(keys[k].row);
    if (k > 0 && (keys[k - 1].pid != keys[k].pid || keys[k - 1].tid != keys[k].tid)) {
      while (!stack.empty()) exit_top();
      last_node = last_top = kNoNode;
      last_parent = kNoRow;
    }
    while (!stack.empty() && s_.end_ns(stack.back()) <= s_.ts_ns[r]) exit_top();
    if (stack.empty() && last_top != kNoNode) Add(last_top, StartOfRow(r), EdgeKind::kDependency, kNoRow, true);
    if (last_node != kNoNode) Add(last_node, StartOfRow(r), EdgeKind::kHost, attribute(last_node, StartOfRow(r)));
    last_node = StartOfRow(r);
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
  for (uint32_t r : rows_) {
    if (trace::IsDeviceActivity(s_.kind[r])) items.push_back({s_.ts_ns[r], r});
  }
  if (cuda_sync_) {
    for (size_t i = 0; i < s_.size(); ++i) {
      if (s_.kind[i] == EventKind::kDeviceSync && s_.end_ns(i) >= lo_ && s_.end_ns(i) <= hi_) {
        items.push_back({s_.end_ns(i), static_cast<uint32_t>(i)});
      }
    }
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
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

  std::map<std::pair<int32_t, int64_t>, uint32_t> last_end;  // (device, stream) -> end node
  std::unordered_map<uint32_t, int32_t> kernel_sync;         // dest row -> source row
  std::vector<int32_t> own_last;  // launch local -> its device op (local) ending last
  own_last.assign(rows_.size(), -1);
  for (const Item& it : items) {
    const uint32_t r = it.row;
    const int32_t dev = s_.device[r];
    if (s_.kind[r] == EventKind::kDeviceSync) {
      const int32_t call = s_.launch_row[r];
      const std::string_view name = s_.name_of(r);
      if (name == "Stream Sync" || name == "Context Sync") {
        if (!InGraph(call)) continue;
        for (const auto& [key, node] : last_end) {
          if (key.first != dev || (name == "Stream Sync" && key.second != s_.stream[r])) continue;
          Add(node, EndOfRow(call), EdgeKind::kSync, kNoRow, true);
        }
      } else if (name == "Event Sync") {
        const int32_t src = record_source(r);
        if (InGraph(src) && InGraph(call)) Add(EndOfRow(src), EndOfRow(call), EdgeKind::kSync, kNoRow, true);
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
    const uint32_t lr = static_cast<uint32_t>(local_[r]);
    Add(Start(lr), End(lr), EdgeKind::kDevice, static_cast<int32_t>(r));
    int64_t sync_end = INT64_MIN;
    bool has_sync = false;
    if (auto ks = kernel_sync.find(r); ks != kernel_sync.end()) {
      if (InGraph(ks->second)) {
        Add(EndOfRow(ks->second), Start(lr), EdgeKind::kSync, kNoRow, true);
        sync_end = s_.end_ns(ks->second);
        has_sync = true;
      }
      kernel_sync.erase(ks);
    }
    const auto key = std::make_pair(dev, s_.stream[r]);
    auto prev = last_end.find(key);
    const int32_t l = s_.launch_row[r];
    if (InGraph(l) && (prev == last_end.end() || ts_[prev->second] < s_.ts_ns[l]) &&
        (!has_sync || sync_end < s_.ts_ns[l])) {
      Add(StartOfRow(l), Start(lr), EdgeKind::kLaunch, static_cast<int32_t>(r));
    } else if (prev != last_end.end() && (!has_sync || sync_end < ts_[prev->second])) {
      Add(prev->second, Start(lr), EdgeKind::kGap, static_cast<int32_t>(r));
    }
    last_end[key] = End(lr);
    if (InGraph(l)) {
      int32_t& o = own_last[static_cast<size_t>(local_[l])];
      if (o < 0 || ts_[End(static_cast<uint32_t>(o))] < s_.end_ns(r)) o = static_cast<int32_t>(lr);
    }
  }

  // Blocking calls without a cuda_sync row: a copy call waits for its own
  // copy; in a trace without cuda_sync events a sync call waits for the
  // device op that finished last before it returned.
  std::vector<std::pair<int64_t, uint32_t>> device_ends;  // (end, local)
  if (!cuda_sync_) {
    for (uint32_t lr = 0; lr < rows_.size(); ++lr) {
      if (trace::IsDeviceActivity(s_.kind[rows_[lr]])) device_ends.push_back({ts_[End(lr)], lr});
    }
    std::sort(device_ends.begin(), device_ends.end());
  }
  std::vector<int8_t> blocking(s_.strings().size(), -1);
  for (uint32_t lr = 0; lr < rows_.size(); ++lr) {
    const uint32_t b = rows_[lr];
    if (s_.kind[b] != EventKind::kRuntime && s_.kind[b] != EventKind::kDriver) continue;
    int8_t& bl = blocking[s_.name[b]];
    if (bl < 0) {
      const std::string_view n = s_.name_of(b);
      bl = IsBlockingCallName(n) && n.find("EventQuery") == std::string_view::npos ? 1 : 0;
    }
    if (!bl) continue;
    const int32_t own = own_last[lr];
    if (own >= 0) {
      if (ts_[End(static_cast<uint32_t>(own))] <= ts_[End(lr)]) {
        Add(End(static_cast<uint32_t>(own)), End(lr), EdgeKind::kSync, kNoRow, true);
      }
      continue;
    }
    if (cuda_sync_) continue;
    auto p = std::upper_bound(device_ends.begin(), device_ends.end(), std::make_pair(ts_[End(lr)], UINT32_MAX));
    if (p == device_ends.begin()) continue;
    --p;
    if (p->first > ts_[Start(lr)]) Add(End(p->second), End(lr), EdgeKind::kSync, kNoRow, true);
  }
}

bool Graph::LongestPath(std::vector<uint32_t>* path_edges) {
  const size_t n = ts_.size();
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
  std::vector<uint32_t> order;
  order.reserve(n);
  for (uint32_t v = 0; v < n; ++v) {
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
  if (order.size() != n) return false;
  // The end of the path: the longest distance; ties go to the later node.
  uint32_t best = 0;
  for (uint32_t v = 1; v < n; ++v) {
    if (dist[v] > dist[best] || (dist[v] == dist[best] && ts_[v] > ts_[best])) best = v;
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

CriticalPath AnalyzeCriticalPath(const EventStore& s, const std::vector<timeline::StepWindow>& steady) {
  CriticalPath cp;
  if (steady.empty()) return cp;
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
  cp.node_count = static_cast<int64_t>(g.ts_.size());
  cp.edge_count = static_cast<int64_t>(g.edges_.size());
  if (g.rows_.empty()) return cp;
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
    seg.start_ns = g.ts_[edge.src];
    seg.end_ns = g.ts_[edge.dst];
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
  cp.on_path = timeline::IntervalSet::FromUnsorted(std::move(seg_ivs));
  const timeline::IntervalSet sync_set =
      timeline::Intersect(cp.on_path, timeline::IntervalSet::FromUnsorted(std::move(sync_calls)));
  cp.sync_ns = sync_set.TotalLength();

  std::map<std::pair<int32_t, int64_t>, CriticalPathStream> streams;
  // (kind, name id) -> (ns, count); names are resolved once at the end.
  std::map<std::pair<std::string, StringId>, std::pair<int64_t, int64_t>> items;
  std::vector<int8_t> comm(s.strings().size(), -1);
  for (const PathSegment& seg : cp.segments) {
    const int64_t w = seg.end_ns - seg.start_ns;
    cp.length_ns += w;
    std::string kind;
    if (seg.kind == PathKind::kHost) {
      cp.host_ns += w;
      kind = "host";
    } else {
      const auto r = static_cast<size_t>(seg.row);
      CriticalPathStream& st = streams[{s.device[r], s.stream[r]}];
      st.device = s.device[r];
      st.stream = s.stream[r];
      if (seg.kind == PathKind::kDevice) {
        cp.device_ns += w;
        if (s.kind[r] == EventKind::kMemcpy) {
          st.memcpy_ns += w;
          kind = "memcpy";
        } else if (s.kind[r] == EventKind::kMemset) {
          st.memset_ns += w;
          kind = "memset";
        } else {
          int8_t& c = comm[s.name[r]];
          if (c < 0) c = IsCommunicationKernel(s, r) ? 1 : 0;
          (c ? st.comm_ns : st.compute_ns) += w;
          kind = "kernel";
        }
      } else if (seg.kind == PathKind::kLaunchDelay) {
        cp.launch_delay_ns += w;
        st.launch_delay_ns += w;
        kind = "launch_delay";
      } else {
        cp.kernel_gap_ns += w;
        st.kernel_gap_ns += w;
        kind = "kernel_gap";
      }
    }
    auto& it = items[{kind, seg.row >= 0 ? s.name[static_cast<size_t>(seg.row)] : kNoString}];
    it.first += w;
    ++it.second;
  }
  for (auto& [key, st] : streams) cp.streams.push_back(st);
  for (const auto& [key, v] : items) {
    cp.top.push_back({key.first, std::string(s.strings().Get(key.second)), v.first, v.second});
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
