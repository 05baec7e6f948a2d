// analyze_run_dir [--lint] DIR: the report `fastenough run` writes of a run
// directory (rundir::AnalyzeRunDirToJson), printed as JSON; --lint adds the
// cross-reference with the program's source, as `run` and `report` do. A
// debugging aid for a run directory that breaks the core: build it under the
// sanitizers (FASTENOUGH_BUILD_TOOLS=ON with FASTENOUGH_SANITIZE=ON).
#include <cstdio>
#include <cstring>

#include "fastenough/rundir/run_report.h"

int main(int argc, char** argv) {
  fastenough::rundir::RunReportOptions options;
  options.cross_reference_lint = argc == 3 && std::strcmp(argv[1], "--lint") == 0;
  if (argc != 2 && !options.cross_reference_lint) {
    std::fprintf(stderr, "usage: analyze_run_dir [--lint] DIR\n");
    return 2;
  }
  auto json = fastenough::rundir::AnalyzeRunDirToJson(argv[argc - 1], options);
  if (!json.ok()) {
    std::fprintf(stderr, "%s\n", json.status().message().c_str());
    return 1;
  }
  std::fwrite(json->data(), 1, json->size(), stdout);
  std::fputc('\n', stdout);
  return 0;
}
