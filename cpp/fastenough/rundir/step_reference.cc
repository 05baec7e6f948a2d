#include "fastenough/rundir/step_reference.h"

#include <cmath>
#include <cstdlib>

namespace fastenough::rundir {

void ExpressSavingsAgainstStep(int64_t reference_ns, std::vector<findings::Finding>* findings) {
  if (reference_ns <= 0) return;
  for (findings::Finding& f : *findings) {
    findings::Saving& s = f.saving;
    if (!(s.share_of_step > 0) || s.per_step_ns <= 0) continue;  // none, or not known
    const double share = std::min(1.0, s.share_of_step);
    const auto per_step = static_cast<int64_t>(std::llround(share * reference_ns));
    if (std::llabs(per_step - s.per_step_ns) > s.per_step_ns / 100) {
      f.evidence.emplace_back("measured_per_step_ns", s.per_step_ns);
      // The step the finding measured on (a share clamped at 1 says only
      // that the saving was at least that step).
      if (s.share_of_step < 1) {
        f.evidence.emplace_back(
            "measured_step_ns",
            static_cast<int64_t>(std::llround(static_cast<double>(s.per_step_ns) / s.share_of_step)));
      }
      s.per_step_ns = per_step;
    }
    f.evidence.emplace_back("step_reference_ns", reference_ns);
  }
}

}  // namespace fastenough::rundir
