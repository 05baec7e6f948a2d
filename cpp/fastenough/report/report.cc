#include "fastenough/report/report.h"

#include <algorithm>
#include <tuple>

namespace fastenough::report {

void RankFindings(std::vector<findings::Finding>& f) {
  auto key = [](const findings::Finding& x) {
    // The share of a step compares across sources (trace, agent, sampler);
    // absolute figures break ties and order findings that have no share.
    return std::make_tuple(x.saving.share_of_step, x.saving.per_step_ns, x.saving.total_ns);
  };
  std::stable_sort(f.begin(), f.end(), [&](const findings::Finding& a,
                                           const findings::Finding& b) {
    return key(a) > key(b);  // -1 (unknown) sorts last
  });
}

}  // namespace fastenough::report
