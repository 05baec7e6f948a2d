// The shape of a lint rule: a stable code (shared with the runtime findings
// where the meaning is the same), a unique name, the --explain text, and a
// check that appends hits for one file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fastenough/lint/module_context.h"

namespace fastenough::lint {

// Where a rule matched and what it says there. The finding's position is the
// node's (for a method call `a.b().item()`, the method name's: source_lint.cc).
struct Hit {
  const Node* node;
  std::string message;
};

using CheckFn = void (*)(const ModuleContext& ctx, std::vector<Hit>& out);

struct Rule {
  std::string_view code;     // the finding code; several rules may share one
  std::string_view name;     // this rule, unique: "sync-method-in-loop"
  std::string_view summary;  // one line for --explain listings and SARIF
  std::string_view explain;  // the why and the fix, for `fastenough lint --explain`
  CheckFn check;
};

// A finding code as lint knows it: its title, and whether `fastenough run`
// reports the same code from measurements.
struct CodeInfo {
  std::string_view code;
  std::string_view title;
  bool runtime;
};

}  // namespace fastenough::lint
