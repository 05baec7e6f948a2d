#include "fastenough/report/row_bound.h"

#include <algorithm>
#include <numeric>

namespace fastenough::report {

std::vector<size_t> KeptRows(size_t n, size_t limit, std::span<const size_t> also) {
  std::vector<size_t> kept;
  if (n <= limit) {
    kept.resize(n);
    std::iota(kept.begin(), kept.end(), size_t{0});
    return kept;
  }
  const size_t head = limit / 2;
  const size_t tail = limit - head;
  kept.reserve(limit + also.size());
  for (size_t i = 0; i < head; ++i) kept.push_back(i);
  for (size_t i : also) {
    if (i >= head && i < n - tail) kept.push_back(i);
  }
  for (size_t i = n - tail; i < n; ++i) kept.push_back(i);
  std::sort(kept.begin() + static_cast<std::ptrdiff_t>(head),
            kept.end() - static_cast<std::ptrdiff_t>(tail));
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  return kept;
}

std::vector<std::pair<size_t, size_t>> KeptRanges(const std::vector<size_t>& kept) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i : kept) {
    if (!out.empty() && out.back().second == i) {
      ++out.back().second;
    } else {
      out.emplace_back(i, i + 1);
    }
  }
  return out;
}

std::vector<size_t> KeptHeaviest(std::span<const int64_t> weight, size_t limit) {
  std::vector<size_t> kept(weight.size());
  std::iota(kept.begin(), kept.end(), size_t{0});
  if (kept.size() <= limit) return kept;
  const auto heavier = [&](size_t a, size_t b) {
    return weight[a] != weight[b] ? weight[a] > weight[b] : a < b;
  };
  std::nth_element(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(limit), kept.end(),
                   heavier);
  kept.resize(limit);
  std::sort(kept.begin(), kept.end());
  return kept;
}

RankRows BoundRank(const analysis::RankAnalysis& ra, size_t step_limit, size_t device_limit) {
  RankRows rows;
  rows.step_count = ra.steps.steps.size();
  std::vector<size_t> also;
  // worst_step indexes step_breakdown.steps, which are the rank's steps in
  // the same order (analysis/step_breakdown.h).
  const auto& sb = ra.step_breakdown;
  if (sb.worst_step >= 0 && sb.steps.size() == rows.step_count) {
    also.push_back(static_cast<size_t>(sb.worst_step));
  }
  rows.steps = KeptRows(rows.step_count, step_limit, also);
  if (ra.devices.size() > device_limit) {
    std::vector<int64_t> busy;
    busy.reserve(ra.devices.size());
    for (const auto& d : ra.devices) busy.push_back(d.busy_ns);
    rows.devices_bounded = true;
    rows.devices = KeptHeaviest(busy, device_limit);
    for (size_t i : rows.devices) rows.device_ids.insert(ra.devices[i].device);
  } else {
    rows.devices.resize(ra.devices.size());
    std::iota(rows.devices.begin(), rows.devices.end(), size_t{0});
  }
  return rows;
}

}  // namespace fastenough::report
