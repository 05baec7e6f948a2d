#include "fastenough/stats/knee.h"

#include <algorithm>
#include <cmath>

namespace fastenough::stats {

namespace {
bool Usable(double v) { return !std::isnan(v) && v > 0.0; }
}  // namespace

int64_t KneeIndex(const std::vector<double>& throughputs, double within) {
  double best = 0.0;
  for (double v : throughputs) {
    if (Usable(v)) best = std::max(best, v);
  }
  if (best <= 0.0) return -1;
  // Comparing against best * (1 - within) with within clamped to [0, 1]:
  // within = 0 keeps exactly the best, within = 1 admits every usable size.
  const double floor = best * (1.0 - std::clamp(within, 0.0, 1.0));
  for (size_t i = 0; i < throughputs.size(); ++i) {
    if (Usable(throughputs[i]) && throughputs[i] >= floor) return static_cast<int64_t>(i);
  }
  return -1;  // unreachable: the best itself passes
}

}  // namespace fastenough::stats
