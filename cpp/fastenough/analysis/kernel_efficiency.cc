#include "fastenough/analysis/kernel_efficiency.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "fastenough/analysis/device_breakdown.h"
#include "fastenough/analysis/op_roles.h"
#include "fastenough/analysis/steady_window.h"
#include "fastenough/timeline/interval_set.h"

namespace fastenough::analysis {

using trace::EventKind;
using trace::EventStore;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A piece of the SM-efficiency curve: min(1, Σ blocks per SM) on [start, end).
struct Piece {
  int64_t start;
  int64_t end;
  double value;
};

// range_utils.merge_ranges_with_value: sweep the kernel endpoints (a start
// before an end at the same time) and keep the running sum where positive.
std::vector<Piece> SmEfficiencyCurve(const std::vector<std::pair<timeline::Interval, double>>& kernels) {
  // `kernels` come sorted by start; only the ends need sorting. Merging the
  // two lists with starts first at equal times is the plugin's endpoint order.
  std::vector<std::pair<int64_t, double>> ends;
  ends.reserve(kernels.size());
  for (const auto& [iv, v] : kernels) ends.emplace_back(iv.end, v);
  std::sort(ends.begin(), ends.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Piece> out;
  if (kernels.empty()) return out;
  int64_t last_t = kernels.front().first.start;
  double sum = 0;
  size_t i = 0, j = 0;
  while (i < kernels.size() || j < ends.size()) {
    const bool start = i < kernels.size() && (j >= ends.size() || kernels[i].first.start <= ends[j].first);
    const int64_t t = start ? kernels[i].first.start : ends[j].first;
    if (t > last_t && sum > 1e-12) out.push_back({last_t, t, std::min(sum, 1.0)});
    last_t = t;
    if (start) {
      sum += kernels[i++].second;
    } else {
      sum -= ends[j++].second;
    }
  }
  return out;
}

double Integrate(const std::vector<Piece>& curve, int64_t lo, int64_t hi) {
  auto it = std::upper_bound(curve.begin(), curve.end(), lo,
                             [](int64_t t, const Piece& p) { return t < p.end; });
  double sum = 0;
  for (; it != curve.end() && it->start < hi; ++it) {
    sum += it->value * static_cast<double>(std::min(it->end, hi) - std::max(it->start, lo));
  }
  return sum;
}

// Raw sums for one window set; Finish() turns them into the figures.
struct Acc {
  int64_t window_ns = 0, busy_ns = 0, kernel_ns = 0, tc_ns = 0;
  double sm_integral = 0, occ_weighted = 0;
  int64_t occ_time = 0;
  EfficiencyFigures Finish(bool has_blocks) const {
    EfficiencyFigures f;
    f.window_ns = window_ns;
    f.kernel_busy_ns = busy_ns;
    f.kernel_ns = kernel_ns;
    f.tensor_core_ns = tc_ns;
    const auto w = static_cast<double>(window_ns);
    f.gpu_utilization = window_ns > 0 ? static_cast<double>(busy_ns) / w : kNaN;
    f.sm_efficiency = window_ns > 0 && has_blocks ? sm_integral / w : kNaN;
    f.achieved_occupancy_pct = occ_time > 0 ? occ_weighted / static_cast<double>(occ_time) : kNaN;
    f.tensor_core_share = kernel_ns > 0 ? static_cast<double>(tc_ns) / static_cast<double>(kernel_ns) : kNaN;
    return f;
  }
};

struct KernelArgsView {
  double blocks = kNaN, warps = kNaN, occ = kNaN;
};

}  // namespace

KernelEfficiency AnalyzeKernelEfficiency(const EventStore& s, const StepStats& steps,
                                         const std::vector<timeline::StepWindow>& steady,
                                         const std::vector<uint32_t>& device_index) {
  KernelEfficiency out;
  // Launch figures by row: the side table's index, or -1.
  std::vector<int32_t> args_index(s.size(), -1);
  for (size_t i = 0; i < s.kernel_args.size(); ++i) args_index[s.kernel_args[i].row] = static_cast<int32_t>(i);
  out.has_launch_args = !s.kernel_args.empty();
  auto args_of = [&](uint32_t row) -> KernelArgsView {
    const int32_t i = args_index[row];
    if (i < 0) return {};
    const auto& a = s.kernel_args[static_cast<size_t>(i)];
    return {a.blocks_per_sm, a.warps_per_sm, a.occupancy_pct};
  };

  std::vector<int8_t> tc(s.strings().size(), -1), comm(s.strings().size(), -1);
  std::vector<int32_t> name_slot(s.strings().size(), -1);  // per device, reset after it
  // Kernels per device in start order: the device index is sorted by
  // (device, stream, start), so each device's streams are merged.
  std::vector<std::pair<int32_t, std::vector<uint32_t>>> by_device;
  {
    std::vector<size_t> runs;  // run starts inside the current device's rows
    auto finish = [&] {
      if (by_device.empty()) return;
      auto& rows = by_device.back().second;
      runs.push_back(rows.size());
      auto less = [&](uint32_t x, uint32_t y) {
        return s.ts_ns[x] != s.ts_ns[y] ? s.ts_ns[x] < s.ts_ns[y] : x < y;
      };
      for (size_t k = 1; k + 1 < runs.size(); ++k) {
        std::inplace_merge(rows.begin(), rows.begin() + static_cast<long>(runs[k]),
                           rows.begin() + static_cast<long>(runs[k + 1]), less);
      }
      runs.clear();
    };
    int64_t stream = trace::kNone;
    for (uint32_t r : device_index) {
      if (s.kind[r] != EventKind::kKernel) continue;
      if (by_device.empty() || by_device.back().first != s.device[r]) {
        finish();
        by_device.push_back({s.device[r], {}});
        stream = trace::kNone;
      }
      auto& rows = by_device.back().second;
      if (s.stream[r] != stream) {
        runs.push_back(rows.size());
        stream = s.stream[r];
      }
      rows.push_back(r);
    }
    finish();
  }
  std::vector<timeline::StepWindow> all_steps;
  for (const auto& r : steps.steps) all_steps.push_back(r.window);

  for (auto& device_rows : by_device) {
    // Named, not a structured binding: the lambdas below capture them, which
    // clang before 16 refuses for bindings.
    const auto device = device_rows.first;
    auto& rows = device_rows.second;
    DeviceEfficiency d;
    d.device = device;
    for (const auto& p : s.device_properties) {
      if (p.id == device) {
        d.num_sms = p.num_sms;
        d.max_warps_per_sm = p.max_warps_per_sm();
      }
    }
    std::vector<timeline::Interval> ivs;
    std::vector<std::pair<timeline::Interval, double>> blocks;
    std::vector<KernelArgsView> row_args(rows.size());
    std::vector<uint8_t> row_tc(rows.size());
    bool has_blocks = false;
    for (size_t k = 0; k < rows.size(); ++k) {
      const uint32_t r = rows[k];
      const timeline::Interval iv{s.ts_ns[r], s.end_ns(r)};
      ivs.push_back(iv);
      row_args[k] = args_of(r);
      // Non-positive blocks per SM are skipped, as the plugin does.
      if (row_args[k].blocks > 0) {
        blocks.push_back({iv, row_args[k].blocks});
        has_blocks = true;
      }
      int8_t& t = tc[s.name[r]];
      if (t < 0) t = IsTensorCoreKernelName(s.name_of(r)) ? 1 : 0;
      row_tc[k] = static_cast<uint8_t>(t);
    }
    // Rows are in start order: the union builds in one pass.
    timeline::IntervalSet busy;
    for (const auto& iv : ivs) busy.AppendSorted(iv);
    ivs = {};
    const std::vector<Piece> curve = SmEfficiencyCurve(blocks);

    // Per window sums; windows are disjoint and in time order.
    auto accumulate = [&](const std::vector<timeline::StepWindow>& windows, std::vector<Acc>& acc) {
      acc.assign(windows.size(), Acc{});
      for (size_t w = 0; w < windows.size(); ++w) {
        acc[w].window_ns = windows[w].dur_ns();
        acc[w].busy_ns = busy.LengthWithin(windows[w].start_ns, windows[w].end_ns);
        acc[w].sm_integral = Integrate(curve, windows[w].start_ns, windows[w].end_ns);
      }
      for (size_t k = 0; k < rows.size(); ++k) {
        const uint32_t r = rows[k];
        const int64_t ts = s.ts_ns[r], te = s.end_ns(r);
        auto it = std::upper_bound(windows.begin(), windows.end(), ts,
                                   [](int64_t t, const timeline::StepWindow& w) { return t < w.end_ns; });
        for (; it != windows.end() && it->start_ns < te; ++it) {
          const int64_t ov = std::min(te, it->end_ns) - std::max(ts, it->start_ns);
          if (ov <= 0) continue;
          Acc& a = acc[static_cast<size_t>(it - windows.begin())];
          a.kernel_ns += ov;
          if (row_tc[k]) a.tc_ns += ov;
          // The plugin skips negative occupancy values.
          if (row_args[k].occ >= 0) {
            a.occ_weighted += row_args[k].occ * static_cast<double>(ov);
            a.occ_time += ov;
          }
        }
      }
    };
    std::vector<Acc> per_step, per_steady;
    accumulate(all_steps, per_step);
    for (const Acc& a : per_step) d.steps.push_back(a.Finish(has_blocks));
    accumulate(steady, per_steady);
    Acc total;
    for (const Acc& a : per_steady) {
      total.window_ns += a.window_ns;
      total.busy_ns += a.busy_ns;
      total.kernel_ns += a.kernel_ns;
      total.tc_ns += a.tc_ns;
      total.sm_integral += a.sm_integral;
      total.occ_weighted += a.occ_weighted;
      total.occ_time += a.occ_time;
    }
    d.steady = total.Finish(has_blocks);

    // Per kernel name over the steady windows (kernels that start in one).
    struct NameAcc {
      int64_t count = 0, ns = 0;
      double occ_w = 0, blocks_w = 0, warps_w = 0;
      int64_t occ_t = 0, blocks_t = 0, warps_t = 0;
      bool tc = false;
      bool comm = false;
    };
    std::vector<std::pair<StringId, NameAcc>> names;
    for (size_t k = 0; k < rows.size(); ++k) {
      const uint32_t r = rows[k];
      if (WindowOf(steady, s.ts_ns[r]) < 0) continue;
      int32_t& slot = name_slot[s.name[r]];
      if (slot < 0) {
        slot = static_cast<int32_t>(names.size());
        names.push_back({s.name[r], NameAcc{}});
      }
      NameAcc& n = names[static_cast<size_t>(slot)].second;
      const int64_t dur = s.dur_ns[r];
      ++n.count;
      n.ns += dur;
      n.tc = row_tc[k];
      int8_t& c = comm[s.name[r]];
      if (c < 0) c = IsCommunicationKernel(s, r) ? 1 : 0;
      n.comm = c == 1;
      const KernelArgsView& a = row_args[k];
      if (a.occ >= 0) { n.occ_w += a.occ * dur; n.occ_t += dur; }
      if (a.blocks >= 0) { n.blocks_w += a.blocks * dur; n.blocks_t += dur; }
      if (a.warps >= 0) { n.warps_w += a.warps * dur; n.warps_t += dur; }
    }
    for (const auto& [id, n] : names) name_slot[id] = -1;
    for (const auto& [id, n] : names) {
      KernelOccupancy k;
      k.name = std::string(s.strings().Get(id));
      k.device = device;
      k.count = n.count;
      k.total_ns = n.ns;
      k.share_of_kernel_time = d.steady.kernel_ns > 0
                                   ? static_cast<double>(n.ns) / static_cast<double>(d.steady.kernel_ns)
                                   : kNaN;
      k.occupancy_pct = n.occ_t > 0 ? n.occ_w / static_cast<double>(n.occ_t) : kNaN;
      k.blocks_per_sm = n.blocks_t > 0 ? n.blocks_w / static_cast<double>(n.blocks_t) : kNaN;
      k.warps_per_sm = n.warps_t > 0 ? n.warps_w / static_cast<double>(n.warps_t) : kNaN;
      k.tensor_core = n.tc;
      k.communication = n.comm;
      out.kernels.push_back(std::move(k));
    }
    out.devices.push_back(std::move(d));
  }
  std::sort(out.kernels.begin(), out.kernels.end(), [](const KernelOccupancy& a, const KernelOccupancy& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    if (a.name != b.name) return a.name < b.name;
    return a.device < b.device;
  });
  return out;
}

}  // namespace fastenough::analysis
