// The "trace" block of `fastenough diff --json` (fastenough.diff/1; the CLI
// adds the run-level block around it). Field by field in docs/diff.md.
#pragma once

#include <string>

#include "fastenough/diff/trace_diff.h"

namespace fastenough::diff {

std::string TraceDiffToJson(const TraceDiff& d);

}  // namespace fastenough::diff
