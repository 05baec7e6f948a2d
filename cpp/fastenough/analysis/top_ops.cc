#include "fastenough/analysis/top_ops.h"

#include <algorithm>
#include <unordered_map>

namespace fastenough::analysis {

std::vector<OpRow> AggregateOps(const trace::EventStore& store) {
  std::vector<uint32_t> idx;
  for (size_t i = 0; i < store.size(); ++i) {
    if (store.kind[i] == trace::EventKind::kCpuOp) idx.push_back(static_cast<uint32_t>(i));
  }
  // Thread by thread, parents before children: start asc, then longer first.
  std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
    if (store.pid[a] != store.pid[b]) return store.pid[a] < store.pid[b];
    if (store.tid[a] != store.tid[b]) return store.tid[a] < store.tid[b];
    if (store.ts_ns[a] != store.ts_ns[b]) return store.ts_ns[a] < store.ts_ns[b];
    if (store.dur_ns[a] != store.dur_ns[b]) return store.dur_ns[a] > store.dur_ns[b];
    return a < b;
  });
  std::vector<int64_t> child_ns(idx.size(), 0);  // by position in idx
  std::vector<size_t> stack;                     // positions in idx
  for (size_t k = 0; k < idx.size(); ++k) {
    const uint32_t row = idx[k];
    if (k > 0 && (store.pid[row] != store.pid[idx[k - 1]] ||
                  store.tid[row] != store.tid[idx[k - 1]])) {
      stack.clear();
    }
    while (!stack.empty() && store.end_ns(idx[stack.back()]) <= store.ts_ns[row]) stack.pop_back();
    if (!stack.empty()) {
      const int64_t parent_end = store.end_ns(idx[stack.back()]);
      child_ns[stack.back()] += std::min(store.end_ns(row), parent_end) - store.ts_ns[row];
    }
    stack.push_back(k);
  }
  struct Acc {
    int64_t count = 0, total = 0, self = 0;
  };
  std::unordered_map<StringId, Acc> by_name;
  for (size_t k = 0; k < idx.size(); ++k) {
    const uint32_t row = idx[k];
    Acc& a = by_name[store.name[row]];
    ++a.count;
    a.total += store.dur_ns[row];
    a.self += std::max<int64_t>(0, store.dur_ns[row] - child_ns[k]);
  }
  std::vector<OpRow> out;
  out.reserve(by_name.size());
  for (const auto& [id, a] : by_name) {
    out.push_back({std::string(store.strings().Get(id)), a.count, a.total, a.self});
  }
  SortAndTrimOps(out, out.size(), false);
  return out;
}

void SortAndTrimOps(std::vector<OpRow>& rows, size_t limit, bool by_self) {
  std::sort(rows.begin(), rows.end(), [by_self](const OpRow& a, const OpRow& b) {
    const int64_t x = by_self ? a.self_ns : a.total_ns;
    const int64_t y = by_self ? b.self_ns : b.total_ns;
    return x != y ? x > y : a.name < b.name;
  });
  if (rows.size() > limit) rows.resize(limit);
}

}  // namespace fastenough::analysis
