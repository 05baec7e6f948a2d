#include "fastenough/findings/finding.h"

namespace fastenough::findings {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kAvoidable: return "avoidable";
    case Verdict::kBounded: return "bounded";
    case Verdict::kInsufficientEvidence: return "insufficient-evidence";
  }
  return "insufficient-evidence";
}

}  // namespace fastenough::findings
