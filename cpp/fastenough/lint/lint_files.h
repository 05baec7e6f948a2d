// Lint many files on several threads: each thread takes the next file, reads
// it, and lints it with its own arena; results are merged and sorted by path,
// so the output does not depend on the scheduling.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fastenough/lint/lint_finding.h"
#include "fastenough/lint/rule_registry.h"

namespace fastenough::lint {

struct LintFilesOptions {
  int threads = 0;  // 0: one per core
  // Called as (files done, files total) from worker threads, often; may be empty.
  std::function<void(uint64_t, uint64_t)> progress;
};

struct FilesLintResult {
  std::vector<LintFinding> findings;  // sorted
  std::vector<FileError> errors;      // sorted: files skipped, and why
  uint64_t files = 0;
  uint64_t bytes = 0;
  uint64_t parse_ns = 0;    // summed over threads
  uint64_t analyse_ns = 0;  // summed over threads
};

FilesLintResult LintFiles(const std::vector<std::string>& paths, const RuleSelection& selection,
                          const LintFilesOptions& options);

}  // namespace fastenough::lint
