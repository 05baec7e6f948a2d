// fastenough._core.lint_*: the lint rules (cpp/fastenough/lint/) for the CLI
// and the tests: the rule and code tables, one file's text, and many files on
// threads with the GIL released. Findings cross as tuples in the field order of
// fastenough.lint.finding.LintFinding; skipped files as FileError's fields.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <vector>

#include "fastenough/lint/lint_files.h"
#include "fastenough/lint/rule_registry.h"
#include "fastenough/lint/source_lint.h"
#include "fastenough/pysrc/arena.h"
#include "fs_path.h"
#include "progress_relay.h"
#include "register.h"

namespace nb = nanobind;

namespace fastenough::bindings {

namespace {

nb::tuple FindingTuple(const lint::LintFinding& f) {
  return nb::make_tuple(FsStr(f.path), f.line, f.col, f.code, f.rule, f.message, f.end_line, f.end_col,
                        f.function, f.source_line);
}

nb::tuple ErrorTuple(const lint::FileError& e) {
  return nb::make_tuple(FsStr(e.path), e.line, e.message);
}

lint::RuleSelection Selection(const std::optional<std::vector<std::string>>& codes) {
  return codes ? lint::RuleSelection::ForCodes(*codes) : lint::RuleSelection::All();
}

}  // namespace

void RegisterLint(nb::module_& m) {
  m.def(
      "lint_rules",
      [] {
        nb::list out;
        for (const lint::Rule* r : lint::AllRules()) {
          out.append(nb::make_tuple(std::string(r->code), std::string(r->name),
                                    std::string(r->summary), std::string(r->explain)));
        }
        return out;
      },
      "Every lint rule as (code, name, summary, explain), in the order lint runs them.");
  m.def(
      "lint_codes",
      [] {
        nb::list out;
        for (const lint::CodeInfo& c : lint::AllCodes()) {
          out.append(nb::make_tuple(std::string(c.code), std::string(c.title), c.runtime));
        }
        return out;
      },
      "Every code lint reports as (code, title, shared with runtime findings).");
  m.def(
      "lint_source",
      [](const FsPath& path, nb::bytes data,
         std::optional<std::vector<std::string>> codes) {
        const lint::RuleSelection selection = Selection(codes);
        std::string text(data.c_str(), data.size());
        lint::LintOutput out;
        {
          nb::gil_scoped_release release;
          pysrc::Arena arena;
          out = lint::LintSource(path.native(), text, selection, arena);
        }
        nb::list findings;
        for (const lint::LintFinding& f : out.findings) findings.append(FindingTuple(f));
        nb::object error = out.error ? nb::object(ErrorTuple(*out.error)) : nb::none();
        return nb::make_tuple(findings, error);
      },
      nb::arg("path"), nb::arg("data"), nb::arg("codes").none() = nb::none(),
      "Lint one file's bytes: (findings, error or None). codes=None runs every rule.");
  m.def(
      "lint_files",
      [](const std::vector<FsPath>& paths, std::optional<std::vector<std::string>> codes,
         int threads, nb::object progress) {
        const lint::RuleSelection selection = Selection(codes);
        ProgressRelay relay(std::move(progress));
        lint::LintFilesOptions options;
        options.threads = threads;
        options.progress = relay.Function();
        lint::FilesLintResult r;
        {
          nb::gil_scoped_release release;
          r = lint::LintFiles(NativePaths(paths), selection, options);
        }
        nb::list findings, errors;
        for (const lint::LintFinding& f : r.findings) findings.append(FindingTuple(f));
        for (const lint::FileError& e : r.errors) errors.append(ErrorTuple(e));
        nb::dict out;
        out["findings"] = findings;
        out["errors"] = errors;
        out["files"] = r.files;
        out["bytes"] = r.bytes;
        out["parse_s"] = r.parse_ns / 1e9;
        out["analyse_s"] = r.analyse_ns / 1e9;
        return out;
      },
      nb::arg("paths"), nb::arg("codes").none() = nb::none(), nb::arg("threads") = 0,
      nb::arg("progress").none() = nb::none(),
      "Lint files on `threads` threads (0: one per core): dict of findings, errors "
      "(skipped files), files, bytes, parse_s, analyse_s. progress(done, total) is "
      "called at most ~10 times a second.");
}

}  // namespace fastenough::bindings
