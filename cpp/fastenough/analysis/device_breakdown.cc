#include "fastenough/analysis/device_breakdown.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_map>

namespace fastenough::analysis {

using trace::EventKind;
using trace::EventStore;

const char* GapKindName(GapKind k) {
  switch (k) {
    case GapKind::kHostWait: return "host_wait";
    case GapKind::kKernelWait: return "kernel_wait";
    case GapKind::kOther: return "other";
  }
  return "other";
}

void IdleBreakdown::Add(GapKind k, int64_t ns) {
  switch (k) {
    case GapKind::kHostWait: host_wait_ns += ns; break;
    case GapKind::kKernelWait: kernel_wait_ns += ns; break;
    case GapKind::kOther: other_ns += ns; break;
  }
}

void IdleBreakdown::Merge(const IdleBreakdown& o) {
  host_wait_ns += o.host_wait_ns;
  kernel_wait_ns += o.kernel_wait_ns;
  other_ns += o.other_ns;
}

namespace {

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() &&
           std::tolower(static_cast<unsigned char>(hay[i + j])) == needle[j]) {
      ++j;
    }
    if (j == needle.size()) return true;
  }
  return false;
}

bool IsCommName(std::string_view s) {
  return ContainsNoCase(s, "nccl") || ContainsNoCase(s, "rccl") || ContainsNoCase(s, "hccl");
}

}  // namespace

bool IsCommunicationKernel(const EventStore& store, size_t row) {
  if (IsCommName(store.name_of(row))) return true;
  // Category hints: NPU traces write "HCCL" / "communication" categories.
  std::string_view cat = store.strings().Get(store.category[row]);
  return IsCommName(cat) || ContainsNoCase(cat, "communication");
}

std::vector<uint32_t> DeviceActivityIndex(const EventStore& store) {
  std::vector<uint32_t> idx;
  for (size_t i = 0; i < store.size(); ++i) {
    if (trace::IsDeviceActivity(store.kind[i])) idx.push_back(static_cast<uint32_t>(i));
  }
  std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
    if (store.device[a] != store.device[b]) return store.device[a] < store.device[b];
    if (store.stream[a] != store.stream[b]) return store.stream[a] < store.stream[b];
    if (store.ts_ns[a] != store.ts_ns[b]) return store.ts_ns[a] < store.ts_ns[b];
    if (store.dur_ns[a] != store.dur_ns[b]) return store.dur_ns[a] < store.dur_ns[b];
    return a < b;
  });
  return idx;
}

namespace {

// One stream's ops, rows [begin, end) of the index, already in time order.
StreamIdle AnalyzeStream(const EventStore& store, const std::vector<uint32_t>& index,
                         size_t begin, size_t end, const BreakdownOptions& options) {
  StreamIdle s;
  s.stream = store.stream[index[begin]];
  s.op_count = static_cast<int64_t>(end - begin);
  s.start_ns = store.ts_ns[index[begin]];
  timeline::IntervalSet busy;
  // prev_end is the running maximum end, so an op nested in a longer one
  // (a quirk of some traces) does not open a false gap.
  int64_t prev_end = store.end_ns(index[begin]);
  uint32_t prev_row = index[begin];
  busy.AppendSorted({store.ts_ns[index[begin]], prev_end});
  for (size_t k = begin + 1; k < end; ++k) {
    const uint32_t row = index[k];
    const int64_t ts = store.ts_ns[row];
    busy.AppendSorted({ts, store.end_ns(row)});
    if (ts > prev_end) {
      GapKind kind = GapKind::kOther;
      const int32_t launch = store.launch_row[row];
      if (launch != trace::kNoRow && store.ts_ns[launch] > prev_end) {
        kind = GapKind::kHostWait;
      } else if (ts - prev_end < options.kernel_wait_threshold_ns) {
        kind = GapKind::kKernelWait;
      }
      s.gaps.push_back({prev_end, ts, kind, prev_row, row});
      s.idle.Add(kind, ts - prev_end);
    }
    if (store.end_ns(row) >= prev_end) {
      prev_end = store.end_ns(row);
      prev_row = row;
    }
  }
  s.end_ns = prev_end;
  s.busy_ns = busy.TotalLength();
  s.gap_count = static_cast<int64_t>(s.gaps.size());
  return s;
}

// Splits the gaps of the device's busy union (rows [begin, end) of the index)
// by cause. The ops that start exactly where a gap ends are the ones the
// device waited for: the gap is host_wait when all of them were launched
// after the gap began (the host had not submitted them yet).
IdleBreakdown ClassifyDeviceGaps(const EventStore& store, const std::vector<uint32_t>& index,
                                 size_t begin, size_t end, const timeline::IntervalSet& busy,
                                 const BreakdownOptions& options) {
  IdleBreakdown out;
  const auto& ivs = busy.intervals();
  if (ivs.size() < 2) return out;
  std::vector<std::pair<int64_t, uint32_t>> starts;
  starts.reserve(end - begin);
  for (size_t k = begin; k < end; ++k) starts.emplace_back(store.ts_ns[index[k]], index[k]);
  std::sort(starts.begin(), starts.end());
  size_t p = 0;
  for (size_t i = 1; i < ivs.size(); ++i) {
    const int64_t gap_start = ivs[i - 1].end;
    const int64_t gap_end = ivs[i].start;
    while (p < starts.size() && starts[p].first < gap_end) ++p;
    bool all_launched_late = p < starts.size() && starts[p].first == gap_end;
    for (size_t q = p; q < starts.size() && starts[q].first == gap_end; ++q) {
      const int32_t launch = store.launch_row[starts[q].second];
      if (launch == trace::kNoRow || store.ts_ns[launch] <= gap_start) all_launched_late = false;
    }
    GapKind kind = GapKind::kOther;
    if (all_launched_late) {
      kind = GapKind::kHostWait;
    } else if (gap_end - gap_start < options.kernel_wait_threshold_ns) {
      kind = GapKind::kKernelWait;
    }
    out.Add(kind, gap_end - gap_start);
  }
  return out;
}

// Communication test cached per interned string (name or category): names
// repeat millions of times, the substring scan runs once per distinct string.
class CommCache {
 public:
  explicit CommCache(const EventStore& store) : store_(store), v_(store.strings().size(), -1),
        cat_(store.strings().size(), -1) {}
  bool IsComm(size_t row) { return Test(store_.name[row]) || TestCategory(store_.category[row]); }

 private:
  bool Test(StringId id) {
    if (v_[id] < 0) v_[id] = IsCommName(store_.strings().Get(id)) ? 1 : 0;
    return v_[id] == 1;
  }
  bool TestCategory(StringId id) {
    if (cat_[id] < 0) {
      std::string_view cat = store_.strings().Get(id);
      cat_[id] = IsCommName(cat) || ContainsNoCase(cat, "communication") ? 1 : 0;
    }
    return cat_[id] == 1;
  }
  const EventStore& store_;
  std::vector<int8_t> v_;
  std::vector<int8_t> cat_;
};

DeviceBreakdown AnalyzeDevice(const EventStore& store, const std::vector<uint32_t>& index,
                              size_t begin, size_t end, const BreakdownOptions& options,
                              CommCache& comm_cache) {
  DeviceBreakdown d;
  d.device = store.device[index[begin]];
  for (const auto& p : store.device_properties) {
    if (p.id == d.device) d.name = p.name;
  }
  std::vector<timeline::Interval> compute, comm, memcpy, memset, all;
  all.reserve(end - begin);
  for (size_t k = begin; k < end; ++k) {
    const uint32_t row = index[k];
    const timeline::Interval iv{store.ts_ns[row], store.end_ns(row)};
    all.push_back(iv);
    switch (store.kind[row]) {
      case EventKind::kKernel: {
        ++d.kernel_count;
        if (comm_cache.IsComm(row)) {
          ++d.comm_kernel_count;
          comm.push_back(iv);
        } else {
          compute.push_back(iv);
        }
        const int32_t launch = store.launch_row[row];
        if (launch != trace::kNoRow && store.dur_ns[row] < store.dur_ns[launch]) {
          ++d.short_kernel_count;
        }
        break;
      }
      case EventKind::kMemcpy: ++d.memcpy_count; memcpy.push_back(iv); break;
      case EventKind::kMemset: ++d.memset_count; memset.push_back(iv); break;
      default: break;
    }
  }
  using timeline::IntervalSet;
  d.busy = IntervalSet::FromUnsorted(std::move(all));
  const IntervalSet compute_set = IntervalSet::FromUnsorted(std::move(compute));
  const IntervalSet comm_set = IntervalSet::FromUnsorted(std::move(comm));
  const IntervalSet memcpy_set = IntervalSet::FromUnsorted(std::move(memcpy));
  const IntervalSet memset_set = IntervalSet::FromUnsorted(std::move(memset));
  const IntervalSet kernels = Union(compute_set, comm_set);
  d.compute_ns = compute_set.TotalLength();
  d.comm_ns = kernels.TotalLength() - d.compute_ns;
  d.memcpy_ns = Subtract(memcpy_set, kernels).TotalLength();
  d.memset_ns = Subtract(memset_set, Union(kernels, memcpy_set)).TotalLength();
  d.busy_ns = d.busy.TotalLength();
  d.start_ns = d.busy.start();
  d.end_ns = d.busy.end();
  d.span_ns = d.end_ns - d.start_ns;
  d.idle_ns = d.span_ns - d.busy_ns;
  d.device_idle = ClassifyDeviceGaps(store, index, begin, end, d.busy, options);

  size_t s = begin;
  while (s < end) {
    size_t e = s + 1;
    while (e < end && store.stream[index[e]] == store.stream[index[s]]) ++e;
    d.streams.push_back(AnalyzeStream(store, index, s, e, options));
    d.idle_breakdown.Merge(d.streams.back().idle);
    s = e;
  }
  return d;
}

}  // namespace

std::vector<DeviceBreakdown> AnalyzeDevices(const EventStore& store,
                                            const std::vector<uint32_t>& index,
                                            const BreakdownOptions& options) {
  std::vector<DeviceBreakdown> out;
  CommCache comm_cache(store);
  size_t b = 0;
  while (b < index.size()) {
    size_t e = b + 1;
    while (e < index.size() && store.device[index[e]] == store.device[index[b]]) ++e;
    out.push_back(AnalyzeDevice(store, index, b, e, options, comm_cache));
    b = e;
  }
  return out;
}

}  // namespace fastenough::analysis
