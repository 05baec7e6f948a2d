#include "fastenough/timeline/interval_set.h"

#include <algorithm>

namespace fastenough::timeline {

IntervalSet IntervalSet::FromUnsorted(std::vector<Interval> intervals) {
  // Often already in start order (a time-ordered index): the union does not
  // depend on the order of equal starts, so a sorted input needs no sort.
  const auto by_start = [](const Interval& x, const Interval& y) { return x.start < y.start; };
  if (!std::is_sorted(intervals.begin(), intervals.end(), by_start)) {
    std::sort(intervals.begin(), intervals.end(), by_start);
  }
  IntervalSet s;
  s.v_.reserve(intervals.size());
  for (const Interval& iv : intervals) s.AppendSorted(iv);
  s.v_.shrink_to_fit();
  return s;
}

void IntervalSet::AppendSorted(Interval iv) {
  if (iv.end <= iv.start) return;
  // Touching intervals ([0,5) and [5,8)) merge: there is no gap between them.
  if (!v_.empty() && iv.start <= v_.back().end) {
    v_.back().end = std::max(v_.back().end, iv.end);
  } else {
    v_.push_back(iv);
  }
}

int64_t IntervalSet::TotalLength() const {
  int64_t t = 0;
  for (const Interval& iv : v_) t += iv.length();
  return t;
}

int64_t IntervalSet::LengthWithin(int64_t lo, int64_t hi) const {
  if (hi <= lo) return 0;
  // First interval that ends after lo.
  auto it = std::upper_bound(v_.begin(), v_.end(), lo,
                             [](int64_t x, const Interval& iv) { return x < iv.end; });
  int64_t t = 0;
  for (; it != v_.end() && it->start < hi; ++it) {
    t += std::min(it->end, hi) - std::max(it->start, lo);
  }
  return t;
}

IntervalSet Union(const IntervalSet& a, const IntervalSet& b) {
  IntervalSet out;
  const auto& x = a.intervals();
  const auto& y = b.intervals();
  size_t i = 0, j = 0;
  while (i < x.size() || j < y.size()) {
    if (j == y.size() || (i < x.size() && x[i].start <= y[j].start)) {
      out.AppendSorted(x[i++]);
    } else {
      out.AppendSorted(y[j++]);
    }
  }
  return out;
}

IntervalSet Intersect(const IntervalSet& a, const IntervalSet& b) {
  IntervalSet out;
  const auto& x = a.intervals();
  const auto& y = b.intervals();
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const int64_t lo = std::max(x[i].start, y[j].start);
    const int64_t hi = std::min(x[i].end, y[j].end);
    if (lo < hi) out.AppendSorted({lo, hi});
    if (x[i].end < y[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

IntervalSet Subtract(const IntervalSet& a, const IntervalSet& b) {
  IntervalSet out;
  const auto& y = b.intervals();
  size_t j = 0;
  for (const Interval& iv : a.intervals()) {
    int64_t cur = iv.start;
    // Skip b-intervals entirely before this one.
    while (j < y.size() && y[j].end <= cur) ++j;
    size_t k = j;
    while (k < y.size() && y[k].start < iv.end) {
      if (y[k].start > cur) out.AppendSorted({cur, y[k].start});
      cur = std::max(cur, y[k].end);
      if (y[k].end > iv.end) break;  // may still cover the next a-interval
      ++k;
    }
    j = k;
    if (cur < iv.end) out.AppendSorted({cur, iv.end});
  }
  return out;
}

IntervalSet Gaps(const IntervalSet& a, int64_t lo, int64_t hi) {
  IntervalSet window;
  window.AppendSorted({lo, hi});
  return Subtract(window, a);
}

}  // namespace fastenough::timeline
