#include "fastenough/analysis/shapes.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace fastenough::analysis {

std::vector<ShapeRow> ShapeCensus(const trace::EventStore& store, size_t top_ops, size_t per_op) {
  using Key = std::tuple<StringId, StringId, StringId, StringId, StringId>;
  struct Acc {
    int64_t count = 0, total_ns = 0, device_ns = 0;
  };
  std::map<Key, Acc> by_shape;
  std::unordered_map<StringId, int64_t> name_total;
  bool any_shape = false;
  for (size_t i = 0; i < store.size(); ++i) {
    if (store.kind[i] != trace::EventKind::kCpuOp) continue;
    name_total[store.name[i]] += store.dur_ns[i];
    if (store.input_dims[i] == kNoString) continue;
    any_shape = true;
    Acc& a = by_shape[{store.name[i], store.input_dims[i], store.input_types[i],
                       store.input_strides[i], store.input_concrete[i]}];
    a.count += 1;
    a.total_ns += store.dur_ns[i];
  }
  if (!any_shape) return {};
  // Device time under each op call with a direct External id link: added to
  // the call's shape as it comes (an op's kernels come one after another, so
  // the shape is looked up when the op changes), no table per op row.
  if (!store.cpu_op_row.empty()) {
    int32_t last_op = trace::kNoRow;
    Acc* last = nullptr;
    for (size_t i = 0; i < store.size(); ++i) {
      if (!trace::IsDeviceActivity(store.kind[i])) continue;
      const int32_t op = store.cpu_op_row[i];
      if (op == trace::kNoRow) continue;
      if (op != last_op) {
        last_op = op;
        last = nullptr;
        if (store.input_dims[op] != kNoString) {
          auto it = by_shape.find({store.name[op], store.input_dims[op], store.input_types[op],
                                   store.input_strides[op], store.input_concrete[op]});
          if (it != by_shape.end()) last = &it->second;
        }
      }
      if (last) last->device_ns += store.dur_ns[i];
    }
  }
  // Hottest names that have shapes.
  std::vector<std::pair<int64_t, StringId>> names;
  for (const auto& [id, total] : name_total) names.push_back({total, id});
  std::sort(names.begin(), names.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return store.strings().Get(a.second) < store.strings().Get(b.second);
  });
  std::vector<ShapeRow> out;
  size_t taken = 0;
  for (const auto& [total, id] : names) {
    if (taken == top_ops) break;
    std::vector<ShapeRow> rows;
    for (auto it = by_shape.lower_bound({id, 0, 0, 0, 0});
         it != by_shape.end() && std::get<0>(it->first) == id; ++it) {
      ShapeRow r;
      r.op = std::string(store.strings().Get(id));
      r.input_dims = std::string(store.strings().Get(std::get<1>(it->first)));
      r.input_types = std::string(store.strings().Get(std::get<2>(it->first)));
      r.input_strides = std::string(store.strings().Get(std::get<3>(it->first)));
      r.input_concrete = std::string(store.strings().Get(std::get<4>(it->first)));
      r.count = it->second.count;
      r.total_ns = it->second.total_ns;
      r.device_ns = it->second.device_ns;
      rows.push_back(std::move(r));
    }
    if (rows.empty()) continue;
    ++taken;
    std::stable_sort(rows.begin(), rows.end(), [](const ShapeRow& a, const ShapeRow& b) {
      if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
      return a.input_dims < b.input_dims;
    });
    if (rows.size() > per_op) rows.resize(per_op);
    for (auto& r : rows) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace fastenough::analysis
