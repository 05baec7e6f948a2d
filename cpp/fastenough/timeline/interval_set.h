// Interval algebra on half-open time ranges [start, end) in nanoseconds.
//
// An IntervalSet is a sorted list of disjoint, non-empty, non-touching
// intervals (the normal form). Every analysis that asks "how long was the
// device busy" reduces to a union of these and a total length; the set
// operations below are linear merges over two normal forms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fastenough::timeline {

struct Interval {
  int64_t start = 0;
  int64_t end = 0;  // exclusive
  int64_t length() const { return end - start; }
  bool operator==(const Interval&) const = default;
};

class IntervalSet {
 public:
  IntervalSet() = default;
  // Normalises any input: unsorted, overlapping, nested, touching, empty or
  // reversed (end < start) intervals. Empty and reversed ones are dropped.
  static IntervalSet FromUnsorted(std::vector<Interval> intervals);
  // For callers that add intervals already sorted by start: merges on the fly.
  void AppendSorted(Interval iv);

  const std::vector<Interval>& intervals() const { return v_; }
  bool empty() const { return v_.empty(); }
  size_t size() const { return v_.size(); }
  int64_t TotalLength() const;
  // Length of the part of the set inside [lo, hi).
  int64_t LengthWithin(int64_t lo, int64_t hi) const;
  int64_t start() const { return v_.empty() ? 0 : v_.front().start; }
  int64_t end() const { return v_.empty() ? 0 : v_.back().end; }

  bool operator==(const IntervalSet&) const = default;

 private:
  std::vector<Interval> v_;
};

IntervalSet Union(const IntervalSet& a, const IntervalSet& b);
IntervalSet Intersect(const IntervalSet& a, const IntervalSet& b);
// a minus b.
IntervalSet Subtract(const IntervalSet& a, const IntervalSet& b);
// The holes of a inside [lo, hi): [lo, hi) minus a.
IntervalSet Gaps(const IntervalSet& a, int64_t lo, int64_t hi);

}  // namespace fastenough::timeline
