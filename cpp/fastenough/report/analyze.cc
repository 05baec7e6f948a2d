#include "fastenough/report/analyze.h"

namespace fastenough::report {

StatusOr<std::string> AnalyzeTracesToJson(const std::vector<std::string>& paths,
                                          const AnalyzeOptions& options) {
  (void)paths;
  (void)options;
  return Unimplemented("analysis pipeline not built yet");
}

}  // namespace fastenough::report
