#include "fastenough/roofline/rank_roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_set>

#include "fastenough/roofline/math_dtype.h"
#include "fastenough/roofline/op_work.h"
#include "fastenough/roofline/roofline.h"
#include "fastenough/util/units.h"

namespace fastenough::roofline {

namespace {

using trace::EventKind;
using trace::kNoRow;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One (name, Input Dims, Input type, Concrete Inputs) and what its calls launched.
struct Group {
  StringId name = kNoString, dims = kNoString, types = kNoString, concrete = kNoString;
  int64_t calls = 0;
  int64_t device_ns = 0;
  int32_t device = -1;  // the device of its first activity, in file order
  bool host_copy = false;  // a host <-> device copy among what it launched
};

// The device time of one op call: the union of the intervals its activities
// ran in, so that kernels it ran side by side on two streams count once (its
// achieved rate is over the time the device spent on it, not over the sum of
// its kernels' times). Kept for the op's activities in a row (as the trace
// writes them: one after another); an op whose activities come apart counts
// each run of them on its own.
class OpDeviceTime {
 public:
  // The part of [begin, end) that the op's earlier activities in this run did
  // not cover.
  int64_t Add(int32_t op, int64_t begin, int64_t end) {
    if (op != op_) {
      op_ = op;
      spans_.clear();
    }
    int64_t covered = 0;
    for (const auto& [b, e] : spans_) covered += std::max<int64_t>(0, std::min(e, end) - std::max(b, begin));
    // Spans are kept disjoint: the new one merged with those it touches.
    int64_t nb = begin, ne = end;
    std::erase_if(spans_, [&](const std::pair<int64_t, int64_t>& x) {
      if (x.second < nb || x.first > ne) return false;
      nb = std::min(nb, x.first);
      ne = std::max(ne, x.second);
      return true;
    });
    spans_.emplace_back(nb, ne);
    return std::max<int64_t>(0, end - begin - covered);
  }

 private:
  int32_t op_ = -1;
  std::vector<std::pair<int64_t, int64_t>> spans_;
};

// The arguments a group is keyed by: an op's name, Input Dims, Input type and
// Concrete Inputs, as the store interned them (equal text, equal id).
struct ArgsKey {
  StringId name = kNoString, dims = kNoString, types = kNoString, concrete = kNoString;
  bool operator==(const ArgsKey&) const = default;
};

// ArgsKey -> group index: open addressing, linear probing, at most half full.
class GroupIndex {
 public:
  // The group of `k`, or `next` (then added) when it has none yet.
  std::pair<size_t, bool> FindOrAdd(const ArgsKey& k, size_t next) {
    if (2 * (count_ + 1) > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t h = Hash(k) & mask;; h = (h + 1) & mask) {
      Slot& slot = slots_[h];
      if (slot.group == kEmpty) {
        slot = {k, next};
        ++count_;
        return {next, true};
      }
      if (slot.key == k) return {slot.group, false};
    }
  }

 private:
  static constexpr size_t kEmpty = SIZE_MAX;
  struct Slot {
    ArgsKey key;
    size_t group = kEmpty;
  };
  static size_t Hash(const ArgsKey& k) {
    uint64_t h = (static_cast<uint64_t>(k.name) << 32 | k.dims) * 0x9E3779B97F4A7C15ull;
    h ^= (static_cast<uint64_t>(k.types) << 32 | k.concrete) * 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    count_ = 0;
    for (const Slot& slot : old) {
      if (slot.group != kEmpty) FindOrAdd(slot.key, slot.group);
    }
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

// The distinct kernel names of a group, in the order they first ran: a scan
// of the few a group usually has, a set once it has many.
class KernelNames {
 public:
  void Add(StringId name) {
    if (!order_.empty() && order_.back() == name) return;
    if (order_.size() <= kScan) {
      if (std::find(order_.begin(), order_.end(), name) != order_.end()) return;
      order_.push_back(name);
      if (order_.size() > kScan) set_.insert(order_.begin(), order_.end());
      return;
    }
    if (set_.insert(name).second) order_.push_back(name);
  }
  const std::vector<StringId>& order() const { return order_; }

 private:
  static constexpr size_t kScan = 16;
  std::vector<StringId> order_;
  std::unordered_set<StringId> set_;
};

// A memcpy between host and device (Kineto: "Memcpy HtoD (Pageable -> Device)").
bool IsHostCopy(std::string_view name) {
  return name.find("HtoD") != std::string_view::npos || name.find("DtoH") != std::string_view::npos;
}

// The cpu op with shapes a device activity row belongs to: the op enclosing
// its launch call, else its own External id link, else its launch's; kNoRow
// when none has shapes.
int32_t OwningOp(const trace::EventStore& s, size_t i, const EnclosingOp& enclosing) {
  const int32_t launch = s.launch_row.empty() ? kNoRow : s.launch_row[i];
  int32_t op = kNoRow;
  if (enclosing && launch != kNoRow) op = enclosing(launch);
  if (op == kNoRow && !s.cpu_op_row.empty()) op = s.cpu_op_row[i];
  if (op == kNoRow && launch != kNoRow && !s.cpu_op_row.empty()) op = s.cpu_op_row[launch];
  if (op == kNoRow || s.kind[op] != EventKind::kCpuOp || s.input_dims[op] == kNoString) {
    return kNoRow;
  }
  return op;
}

std::string_view Text(const trace::EventStore& s, StringId id) {
  return id == kNoString ? std::string_view() : s.strings().Get(id);
}

// The peaks of a device index, from the trace's deviceProperties.
struct DevicePeaksOf {
  std::optional<DeviceMatch> match;
  std::string why_not;  // when no match
};

std::shared_ptr<const PeakTable> BuiltinTable() {
  static const std::shared_ptr<const PeakTable> kTable =
      std::make_shared<const PeakTable>(PeakTable::Builtin());
  return kTable;
}

// The device from --device, where the trace's own description gave none.
DevicePeaksOf GivenDevice(const PeakSettings& settings, std::string why_not) {
  DeviceMatch m = *settings.device;
  m.how = "--device " + settings.device_name + " (" + std::move(why_not) + ")";
  return {std::move(m), ""};
}

DevicePeaksOf FindDevice(const trace::EventStore& s, int32_t device, const PeakSettings& settings) {
  const PeakTable& table = settings.table ? *settings.table : *BuiltinTable();
  for (const auto& p : s.device_properties) {
    if (p.id != device) continue;
    StatusOr<DeviceMatch> m = table.Lookup(DeviceQuery::From(p));
    if (m.ok()) return {std::move(m).value(), ""};
    if (settings.device) {
      return GivenDevice(settings, "the trace's \"" + p.name + "\" has no peaks in the table");
    }
    return {std::nullopt, m.status().message()};
  }
  if (settings.device) return GivenDevice(settings, "the trace has no deviceProperties");
  return {std::nullopt, "the trace has no deviceProperties for device " + std::to_string(device) +
                            ": no peaks (the percentages and the bound are left out; name the "
                            "device with --device NAME)"};
}

OpRoofline Row(const Group& g, const OpWork& work, const std::vector<std::string_view>& kernels,
               const DevicePeaksOf& dev, const trace::EventStore& s) {
  OpRoofline r;
  r.op = std::string(Text(s, g.name));
  r.input_dims = std::string(Text(s, g.dims));
  r.input_types = std::string(Text(s, g.types));
  r.family = OpFamilyName(work.family);
  r.calls = g.calls;
  r.device_ns = g.device_ns;
  r.flops = work.flops;
  r.bytes = work.bytes;
  r.notes = work.notes;
  if (g.host_copy) {
    r.notes.push_back("its device time includes host <-> device copies: those run at the link's "
                      "bandwidth, not device memory's");
  }
  r.arithmetic_intensity = work.bytes > 0 ? work.flops / work.bytes : kNaN;
  const double calls = static_cast<double>(g.calls);
  const double t = static_cast<double>(g.device_ns) * 1e-9;
  r.achieved_flop_per_s = t > 0 ? calls * work.flops / t : kNaN;
  r.achieved_bytes_per_s = t > 0 ? calls * work.bytes / t : kNaN;
  if (!dev.match) {
    r.notes.push_back(dev.why_not);
    return r;
  }
  const DevicePeaks& d = dev.match->peaks;
  r.peak.device = d.name;
  r.peak.source = d.source + " (device matched by " + dev.match->how + ")";
  r.peak.bytes_per_s = MemoryBytesPerSecond(d);
  Dtype dtype = MathDtype(work, kernels);
  if (dtype != work.dtype) {
    r.notes.push_back(std::string("recorded as ") + DtypeName(work.dtype) +
                      ", its kernels' names show a " + DtypeName(dtype) + " path: held to that peak");
  }
  StatusOr<PeakFlops> pf = PeakFlopsFor(d, dtype, work.matrix);
  if (pf.ok()) {
    r.peak.flop_per_s = pf->flop_per_s;
    r.peak.dtype = pf->column;
  } else {
    r.notes.push_back(pf.status().message());
  }
  if (!(t > 0)) return r;
  if (r.peak.bytes_per_s > 0) {
    r.pct_of_memory_peak = 100.0 * r.achieved_bytes_per_s / r.peak.bytes_per_s;
  }
  if (!pf.ok()) return r;
  OpWork all = work;  // every call's work against every call's time
  all.flops *= calls;
  all.bytes *= calls;
  StatusOr<RooflinePoint> p = Evaluate(all, g.device_ns, r.peak.flop_per_s, r.peak.bytes_per_s);
  if (!p.ok()) {
    r.notes.push_back(p.status().message());
    return r;
  }
  r.pct_of_compute_peak = p->pct_of_compute_peak;
  r.pct_of_memory_peak = p->pct_of_memory_peak;
  r.bound = BoundName(p->bound);
  r.time_at_roof_ns = p->time_at_roof_s * 1e9;
  const double binding = p->bound == Bound::kCompute ? r.pct_of_compute_peak : r.pct_of_memory_peak;
  if (binding > 100.0) {
    r.notes.push_back("above its roof (" + util::FormatShare(binding / 100.0) +
                      "): the op did more than the peak allows, so the peak it is held to (" +
                      r.peak.dtype + ") or its model is not what ran; no verdict uses this row");
  }
  return r;
}

}  // namespace

RankRoofline ComputeRankRoofline(const trace::EventStore& s, size_t top_n,
                                 const PeakSettings& settings, const EnclosingOp& enclosing) {
  RankRoofline out;
  out.rank = s.rank;
  if (top_n == 0) return out;
  // Only cpu ops with recorded shapes own device time here: a trace without
  // any (record_shapes off, a CPU trace) has no rows, and no walk.
  if (std::all_of(s.input_dims.begin(), s.input_dims.end(),
                  [](StringId d) { return d == kNoString; })) {
    return out;
  }
  // One pass over the device activities: each one's op (the walk up its
  // launch's call chain), that op's group by its arguments (an open-addressed
  // table of StringId quadruples, probed once per distinct op met in a row:
  // an op's kernels and copies come one after another), a bit per op row so
  // that an op is counted once, and each group's kernel names in the order
  // they first ran. No per-activity node allocation, no hashing of strings.
  std::vector<Group> groups;
  std::vector<KernelNames> kernel_names;  // per group
  std::vector<bool> op_counted(s.size(), false);
  GroupIndex index;
  int32_t last_op = kNoRow;
  size_t last_group = 0;
  OpDeviceTime run_time;
  StringId last_copy_name = kNoString;
  bool last_copy_is_host = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const EventKind kind = s.kind[i];
    if (!trace::IsDeviceActivity(kind)) continue;
    const int32_t op = OwningOp(s, i, enclosing);
    if (op == kNoRow) continue;
    if (op != last_op) {
      const ArgsKey k{s.name[op], s.input_dims[op], s.input_types[op], s.input_concrete[op]};
      const auto [g, inserted] = index.FindOrAdd(k, groups.size());
      if (inserted) {
        groups.push_back({k.name, k.dims, k.types, k.concrete});
        groups.back().device = s.device[i];
        kernel_names.emplace_back();
      }
      last_op = op;
      last_group = g;
      if (!op_counted[op]) {
        op_counted[op] = true;
        groups[g].calls += 1;
      }
    }
    Group& g = groups[last_group];
    g.device_ns += run_time.Add(op, s.ts_ns[i], s.end_ns(i));
    if (kind == EventKind::kKernel) {
      kernel_names[last_group].Add(s.name[i]);
    } else if (kind == EventKind::kMemcpy && !g.host_copy) {
      if (s.name[i] != last_copy_name || last_copy_name == kNoString) {
        last_copy_name = s.name[i];
        last_copy_is_host = IsHostCopy(s.name_of(i));
      }
      g.host_copy = last_copy_is_host;
    }
  }
  if (groups.empty()) return out;
  std::vector<bool>().swap(op_counted);
  std::vector<size_t> order(groups.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Group& x = groups[a];
    const Group& y = groups[b];
    if (x.device_ns != y.device_ns) return x.device_ns > y.device_ns;
    return std::make_tuple(Text(s, x.name), Text(s, x.dims), Text(s, x.types), Text(s, x.concrete)) <
           std::make_tuple(Text(s, y.name), Text(s, y.dims), Text(s, y.types), Text(s, y.concrete));
  });
  // The top_n heaviest groups with a model are the rows; those without one met
  // on the way (as hot as a row) are counted and named.
  std::vector<std::pair<size_t, OpWork>> picked;
  std::unordered_set<std::string> unmodelled_names;
  for (size_t idx : order) {
    if (picked.size() == top_n) break;
    const Group& g = groups[idx];
    const std::string_view types = g.types == kNoString ? std::string_view("[]") : Text(s, g.types);
    StatusOr<OpWork> w = ModelOp(Text(s, g.name), Text(s, g.dims), types, Text(s, g.concrete));
    if (!w.ok()) {
      out.unmodelled.count += 1;
      out.unmodelled.device_ns += g.device_ns;
      std::string name(Text(s, g.name));
      if (unmodelled_names.insert(name).second) out.unmodelled.ops.push_back(std::move(name));
      continue;
    }
    picked.emplace_back(idx, std::move(w).value());
  }
  // The kernels' names of the rows (for the dtype they ran in).
  std::vector<std::vector<std::string_view>> kernels(picked.size());
  for (size_t j = 0; j < picked.size(); ++j) {
    for (StringId name : kernel_names[picked[j].first].order()) kernels[j].push_back(Text(s, name));
  }
  std::map<int32_t, DevicePeaksOf> devices;
  for (size_t j = 0; j < picked.size(); ++j) {
    const Group& g = groups[picked[j].first];
    auto it = devices.find(g.device);
    if (it == devices.end()) it = devices.emplace(g.device, FindDevice(s, g.device, settings)).first;
    out.ops.push_back(Row(g, picked[j].second, kernels[j], it->second, s));
  }
  return out;
}

StatusOr<PeakSettings> MakePeakSettings(std::string_view device, std::string_view peaks_json) {
  PeakSettings out;
  out.table = BuiltinTable();
  if (!peaks_json.empty()) {
    PeakTable t = PeakTable::Builtin();
    Status st = t.ApplyOverride(peaks_json);
    if (!st.ok()) return st;
    out.table = std::make_shared<const PeakTable>(std::move(t));
  }
  if (device.empty()) return out;
  StatusOr<DeviceMatch> m = out.table->Lookup(device);
  if (!m.ok()) {
    std::string msg = "--device: no peaks known for \"" + std::string(device.substr(0, 200)) + "\"";
    const std::vector<std::string> close = out.table->CloseNames(device);
    if (!close.empty()) {
      msg += "; close names:";
      for (size_t i = 0; i < close.size(); ++i) msg += (i ? ", \"" : " \"") + close[i] + "\"";
    }
    msg += " (the table is in docs/roofline.md; give another device's peaks with --peaks FILE.json)";
    return InvalidArgument(msg);
  }
  out.device = std::move(m).value();
  out.device_name = std::string(device.substr(0, 200));
  return out;
}

RankRoofline ComputeRankRoofline(const trace::EventStore& store, size_t top_n,
                                 const PeakTable& table, const EnclosingOp& enclosing_op) {
  PeakSettings settings;
  settings.table = std::shared_ptr<const PeakTable>(&table, [](const PeakTable*) {});
  return ComputeRankRoofline(store, top_n, settings, enclosing_op);
}

RankRoofline ComputeRankRoofline(const trace::EventStore& store, size_t top_n,
                                 const EnclosingOp& enclosing_op) {
  PeakSettings settings;
  settings.table = BuiltinTable();
  return ComputeRankRoofline(store, top_n, settings, enclosing_op);
}

double PctOfBindingRoof(const OpRoofline& row) {
  double pct = kNaN;
  if (row.bound == "compute") pct = row.pct_of_compute_peak;
  if (row.bound == "memory") pct = row.pct_of_memory_peak;
  return pct > 100.0 ? kNaN : pct;
}

std::vector<OpWorstRank> WorstRankPerOp(const std::vector<RankRoofline>& ranks, size_t top_n) {
  // Per key, per rank (in input order): its lowest % of its binding roof.
  struct Seen {
    int rank = 0;
    double pct = 0;
    std::string bound;
    int64_t ns = 0;
  };
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::vector<Seen>> by_key;
  for (const RankRoofline& r : ranks) {
    for (const OpRoofline& op : r.ops) {
      const double pct = PctOfBindingRoof(op);
      if (std::isnan(pct)) continue;
      std::vector<Seen>& seen = by_key[Key{op.op, op.input_dims, op.input_types}];
      if (!seen.empty() && seen.back().rank == r.rank) {
        seen.back().ns += op.device_ns;
        if (pct < seen.back().pct) {
          seen.back().pct = pct;
          seen.back().bound = op.bound;
        }
        continue;
      }
      seen.push_back({r.rank, pct, op.bound, op.device_ns});
    }
  }
  std::vector<OpWorstRank> out;
  for (const auto& [key, seen] : by_key) {
    if (seen.size() < 2) continue;
    OpWorstRank w;
    std::tie(w.op, w.input_dims, w.input_types) = key;
    w.ranks = static_cast<int64_t>(seen.size());
    const Seen* worst = &seen.front();
    const Seen* best = &seen.front();
    for (const Seen& x : seen) {
      w.device_ns += x.ns;
      if (x.pct < worst->pct || (x.pct == worst->pct && x.rank < worst->rank)) worst = &x;
      if (x.pct > best->pct || (x.pct == best->pct && x.rank < best->rank)) best = &x;
    }
    w.worst_rank = worst->rank;
    w.worst_pct_of_roof = worst->pct;
    w.worst_bound = worst->bound;
    w.best_rank = best->rank;
    w.best_pct_of_roof = best->pct;
    out.push_back(std::move(w));
  }
  std::stable_sort(out.begin(), out.end(), [](const OpWorstRank& a, const OpWorstRank& b) {
    return a.device_ns > b.device_ns;
  });
  if (out.size() > top_n) out.resize(top_n);
  return out;
}

}  // namespace fastenough::roofline
