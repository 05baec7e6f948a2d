// checks.json (and checks.rank<R>.json): the findings the agent's checks
// decided in the core (through the binding), whether the checks ran to the
// end, and the padding they measured.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fastenough/findings/finding.h"

namespace fastenough::rundir {

struct ChecksFile {
  bool present = false;
  std::string error;  // checks_error: "" when the checks ran to the end
  // padding: real tokens over padded positions in the examined forwards.
  std::optional<double> real_token_share;
  int64_t padding_batches = 0;
};

ChecksFile ReadCheckFindings(const std::string& path, const char* label,
                             std::vector<findings::Finding>* out,
                             std::vector<std::string>* problems);

}  // namespace fastenough::rundir
