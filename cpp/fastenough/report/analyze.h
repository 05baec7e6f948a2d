// The `fastenough analyze` pipeline: load every trace (in parallel, one store
// per rank), run every analysis, and produce the fastenough.report/1 document.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fastenough/util/status.h"

namespace fastenough::report {

struct AnalyzeOptions {
  // Progress over all inputs: (bytes done, bytes total). Thread-safe callers only.
  std::function<void(uint64_t done, uint64_t total)> progress;
  int threads = 0;  // 0: one per input, at most the hardware concurrency
};

// Returns the report as fastenough.report/1 JSON text.
StatusOr<std::string> AnalyzeTracesToJson(const std::vector<std::string>& paths,
                                          const AnalyzeOptions& options = {});

}  // namespace fastenough::report
