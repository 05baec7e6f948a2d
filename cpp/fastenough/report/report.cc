#include "fastenough/report/report.h"

#include <algorithm>
#include <tuple>

#include "fastenough/findings/catalog.h"

namespace fastenough::report {

void RankFindings(std::vector<findings::Finding>& f) {
  auto key = [](const findings::Finding& x) {
    // Findings whose waste changes the results come first, whatever they save.
    // Then the share of a step compares across sources (trace, agent, sampler);
    // absolute figures break ties and order findings that have no share.
    const findings::CatalogEntry* e = findings::FindCatalogEntry(x.code);
    const bool changes_results = e != nullptr && e->changes_results;
    return std::make_tuple(changes_results, x.saving.share_of_step, x.saving.per_step_ns,
                           x.saving.total_ns);
  };
  std::stable_sort(f.begin(), f.end(), [&](const findings::Finding& a,
                                           const findings::Finding& b) {
    return key(a) > key(b);  // -1 (unknown) sorts last
  });
}

}  // namespace fastenough::report
