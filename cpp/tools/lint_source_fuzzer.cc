// libFuzzer target: any byte string through LintSource with every rule must
// give findings or a skipped-file reason, never a crash, hang or sanitizer
// report; findings must point inside the file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fastenough/lint/source_lint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fastenough;
  static const lint::RuleSelection all = lint::RuleSelection::All();
  pysrc::Arena arena;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  lint::LintOutput out = lint::LintSource("fuzz.py", text, all, arena);
  if (out.error && !out.findings.empty()) __builtin_trap();
  for (const lint::LintFinding& f : out.findings) {
    if (f.line < 1 || f.col < 1 || f.end_line < f.line) __builtin_trap();
  }
  return 0;
}
