#include "fastenough/analysis/graph_launches.h"

#include <algorithm>
#include <map>
#include <limits>
#include <tuple>

#include "fastenough/analysis/op_roles.h"

namespace fastenough::analysis {

using trace::EventKind;
using trace::EventStore;

GraphStats AnalyzeGraphLaunches(const EventStore& s) {
  GraphStats g;
  std::vector<int8_t> is_graph(s.strings().size(), -1);
  std::vector<int64_t> ops_of(s.size(), 0);  // by launch row: device ops linked
  int64_t last_device_end = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < s.size(); ++i) {
    if (!trace::IsDeviceActivity(s.kind[i])) continue;
    last_device_end = std::max(last_device_end, s.end_ns(i));
    const int32_t l = s.launch_row[i];
    if (l != trace::kNoRow) ++ops_of[static_cast<size_t>(l)];
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != EventKind::kRuntime && s.kind[i] != EventKind::kDriver) continue;
    int8_t& gname = is_graph[s.name[i]];
    if (gname < 0) gname = IsGraphLaunchName(s.name_of(i)) ? 1 : 0;
    if (!gname) continue;
    ++g.launch_count;
    if (ops_of[i] > 0) {
      ++g.launches_with_activity;
    } else if (s.ts_ns[i] < last_device_end) {
      ++g.launches_without_activity;
    }
  }
  if (g.launches_with_activity == 0) return g;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!trace::IsDeviceActivity(s.kind[i])) continue;
    const int32_t l = s.launch_row[i];
    if (l == trace::kNoRow || is_graph[s.name[l]] != 1) continue;
    ++g.device_op_count;
    if (s.kind[i] == EventKind::kKernel) ++g.kernel_count;
    g.device_ns += s.dur_ns[i];
  }
  return g;
}

CompiledRegions AnalyzeCompiledRegions(const EventStore& s) {
  CompiledRegions out;
  // One sweep per thread over region ranges and kernel launch calls in start
  // order, with a stack of the open ranges: the innermost range holding a
  // launch is the top-most stacked range that reaches past its end.
  struct Item {
    int64_t pid, tid, start, end;
    int kind;      // 0: region range, 1: launch of a kernel
    uint32_t row;  // the range row, or the kernel row
  };
  std::vector<int8_t> region_name(s.strings().size(), -1);
  std::vector<int8_t> triton(s.strings().size(), -1);
  std::vector<Item> items;
  std::map<StringId, CompiledRegionRow> rows;
  for (size_t i = 0; i < s.size(); ++i) {
    const EventKind k = s.kind[i];
    if (k == EventKind::kCpuOp || k == EventKind::kUserAnnotation) {
      int8_t& r = region_name[s.name[i]];
      if (r < 0) r = IsCompiledRegionName(s.name_of(i)) ? 1 : 0;
      if (r) {
        items.push_back({s.pid[i], s.tid[i], s.ts_ns[i], s.end_ns(i), 0, static_cast<uint32_t>(i)});
        ++rows[s.name[i]].instances;
      }
    } else if (k == EventKind::kKernel) {
      int8_t& t = triton[s.name[i]];
      if (t < 0) t = IsTritonKernelName(s.name_of(i)) ? 1 : 0;
      out.triton_kernel_count += t;
      const int32_t l = s.launch_row[i];
      if (l == trace::kNoRow) {
        out.triton_kernels_outside += t;
        continue;
      }
      items.push_back({s.pid[l], s.tid[l], s.ts_ns[l], s.end_ns(l), 1, static_cast<uint32_t>(i)});
    }
  }
  if (rows.empty()) {
    out.triton_kernels_outside = out.triton_kernel_count;
    return out;
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.pid, a.tid, a.start, a.kind, b.end, a.row) <
           std::tie(b.pid, b.tid, b.start, b.kind, a.end, b.row);
  });
  std::vector<const Item*> stack;
  for (size_t n = 0; n < items.size(); ++n) {
    const Item& it = items[n];
    if (n > 0 && (items[n - 1].pid != it.pid || items[n - 1].tid != it.tid)) stack.clear();
    while (!stack.empty() && stack.back()->end < it.start) stack.pop_back();
    if (it.kind == 0) {
      stack.push_back(&it);
      continue;
    }
    const Item* inner = nullptr;
    for (size_t d = stack.size(); d-- > 0;) {
      if (stack[d]->end >= it.end) {
        inner = stack[d];
        break;
      }
    }
    const int64_t t = triton[s.name[it.row]];
    if (inner == nullptr) {
      out.triton_kernels_outside += t;
      continue;
    }
    CompiledRegionRow& row = rows[s.name[inner->row]];
    ++row.kernel_count;
    row.triton_kernel_count += t;
    row.kernel_ns += s.dur_ns[it.row];
  }
  for (auto& [id, row] : rows) {
    row.name = std::string(s.strings().Get(id));
    out.regions.push_back(std::move(row));
  }
  std::sort(out.regions.begin(), out.regions.end(), [](const auto& a, const auto& b) {
    return a.kernel_ns != b.kernel_ns ? a.kernel_ns > b.kernel_ns : a.name < b.name;
  });
  return out;
}

}  // namespace fastenough::analysis
