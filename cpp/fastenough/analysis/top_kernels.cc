#include "fastenough/analysis/top_kernels.h"

#include <algorithm>
#include <unordered_map>

#include "fastenough/timeline/interval_set.h"
#include "fastenough/util/saturating.h"

namespace fastenough::analysis {

std::vector<KernelRow> AggregateKernels(const trace::EventStore& store,
                                        const std::vector<uint32_t>& device_index,
                                        int64_t busy_ns) {
  struct Acc {
    int64_t count = 0;
    int64_t total = 0;
    int64_t busy = 0;
  };
  std::unordered_map<StringId, Acc> by_name;
  // (name, device) -> its instances, for the union of their time.
  std::unordered_map<uint64_t, std::vector<timeline::Interval>> spans;
  for (uint32_t row : device_index) {
    if (store.kind[row] != trace::EventKind::kKernel) continue;
    Acc& a = by_name[store.name[row]];
    ++a.count;
    a.total = SaturatingAdd(a.total, store.dur_ns[row]);
    const uint64_t key = (uint64_t{store.name[row]} << 32) | static_cast<uint32_t>(store.device[row]);
    spans[key].push_back({store.ts_ns[row], store.end_ns(row)});
  }
  for (auto& [key, ivs] : spans) {
    by_name[static_cast<StringId>(key >> 32)].busy +=
        timeline::IntervalSet::FromUnsorted(std::move(ivs)).TotalLength();
  }
  std::vector<KernelRow> out;
  out.reserve(by_name.size());
  for (const auto& [id, a] : by_name) {
    KernelRow r;
    r.name = std::string(store.strings().Get(id));
    r.count = a.count;
    r.total_ns = a.total;
    r.mean_ns = static_cast<double>(a.total) / static_cast<double>(a.count);
    r.busy_ns = a.busy;
    r.share_of_busy = busy_ns > 0 ? static_cast<double>(a.busy) / static_cast<double>(busy_ns) : 0;
    out.push_back(std::move(r));
  }
  SortAndTrimKernels(out, out.size());
  return out;
}

void SortAndTrimKernels(std::vector<KernelRow>& rows, size_t limit) {
  std::sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  if (rows.size() > limit) rows.resize(limit);
}

}  // namespace fastenough::analysis
