// lint_files: lint Python files with the C++ rules and print every finding and
// skipped file as one JSON object per line; timings on stderr. For
// bench/lint_differential.py (findings against a reference) and for timing the
// core without Python around it.
//
//   lint_files [--threads N] [--select CODE,CODE] FILE...
//   lint_files --list FILE   (paths one per line in FILE)
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "fastenough/lint/lint_files.h"
#include "fastenough/report/json_writer.h"

int main(int argc, char** argv) {
  using namespace fastenough::lint;
  std::vector<std::string> paths;
  LintFilesOptions options;
  std::vector<std::string> codes;
  bool select = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) {
      options.threads = std::stoi(argv[++i]);
    } else if (a == "--select" && i + 1 < argc) {
      select = true;
      std::string list = argv[++i];
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        if (comma > start) codes.push_back(list.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (a == "--list" && i + 1 < argc) {
      std::ifstream in(argv[++i]);
      for (std::string line; std::getline(in, line);) {
        if (!line.empty()) paths.push_back(line);
      }
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) {
    std::fprintf(stderr, "usage: lint_files [--threads N] [--select CODES] [--list F] FILE...\n");
    return 2;
  }
  const RuleSelection selection = select ? RuleSelection::ForCodes(codes) : RuleSelection::All();
  const auto t0 = std::chrono::steady_clock::now();
  const FilesLintResult r = LintFiles(paths, selection, options);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const LintFinding& f : r.findings) {
    fastenough::report::JsonWriter w;
    w.BeginObject()
        .Field("kind", "finding")
        .Field("path", f.path)
        .Field("line", f.line)
        .Field("col", f.col)
        .Field("code", f.code)
        .Field("rule", f.rule)
        .Field("message", f.message)
        .Field("end_line", f.end_line)
        .Field("end_col", f.end_col)
        .Field("function", f.function)
        .Field("source_line", f.source_line)
        .EndObject();
    std::printf("%s\n", w.str().c_str());
  }
  for (const FileError& e : r.errors) {
    fastenough::report::JsonWriter w;
    w.BeginObject()
        .Field("kind", "error")
        .Field("path", e.path)
        .Field("line", e.line)
        .Field("message", e.message)
        .EndObject();
    std::printf("%s\n", w.str().c_str());
  }
  std::fprintf(stderr,
               "lint_files: %llu files, %.1f MB, %zu findings, %zu skipped in %.3f s "
               "(parse %.3f s, rules %.3f s, summed over threads)\n",
               static_cast<unsigned long long>(r.files), r.bytes / 1e6, r.findings.size(),
               r.errors.size(), s, r.parse_ns / 1e9, r.analyse_ns / 1e9);
  return 0;
}
