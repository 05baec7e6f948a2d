// Lint one file's text: parse, run the selected rules, drop suppressed findings.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "fastenough/lint/lint_finding.h"
#include "fastenough/lint/rule_registry.h"
#include "fastenough/pysrc/arena.h"

namespace fastenough::lint {

struct LintOutput {
  std::vector<LintFinding> findings;  // sorted, without repeats
  std::optional<FileError> error;     // the file was skipped (syntax error, ...)
  uint64_t parse_ns = 0;
  uint64_t analyse_ns = 0;
};

// `text` is the file's bytes; they are checked as UTF-8 here. `arena` is
// reset and reused (one per thread keeps the allocations warm).
LintOutput LintSource(std::string_view path, std::string_view text,
                      const RuleSelection& selection, pysrc::Arena& arena);

}  // namespace fastenough::lint
