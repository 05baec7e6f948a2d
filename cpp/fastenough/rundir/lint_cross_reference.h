// `fastenough run` meets lint: which runtime findings the source also shows.
//
// After a run's findings are decided, the Python files they point at (the
// `where` of each finding, and the script or module of the command) are
// linted. A runtime finding with the same code as a lint finding at the same
// file:line (for the agent checks that point at the model's forward call: in
// the same function) gets `also_in_source` ({file, line, rule}); lint findings
// that no runtime finding confirmed are listed apart in the report's "lint"
// object, never merged into the ranked findings: the run did not measure them
// (the code did not run, ran too rarely to matter, or the runtime has no
// check for that code).
//
// report "lint" (absent when nothing was linted):
//   {"files": [path...], "confirmed": int,
//    "unconfirmed": [{"file", "line", "col", "code", "rule", "message"}],
//    "errors": [{"path", "line", "message"}]}
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fastenough/findings/finding.h"
#include "fastenough/lint/lint_finding.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/run_blocks.h"

namespace fastenough::rundir {

using LintCrossReference = report::LintCrossReference;  // report/run_blocks.h
// Lints the program's files that `findings` and `command` (run in `cwd`) name,
// adds also_in_source to the findings it confirms, and returns what the
// report's "lint" says; nullopt when no file of the program was found.
std::optional<LintCrossReference> CrossReferenceLint(std::vector<findings::Finding>* findings,
                                                     const std::string& cwd,
                                                     const std::vector<std::string>& command);

// The report's "lint" object where the writer stands (tests; the report writes
// it from its declaration, report/fields/run_fields.h).
void WriteLintCrossReference(report::JsonWriter& w, const LintCrossReference& x);

}  // namespace fastenough::rundir
