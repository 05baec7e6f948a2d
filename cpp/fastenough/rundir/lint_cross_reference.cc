#include "fastenough/rundir/lint_cross_reference.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "fastenough/lint/lint_files.h"
#include "fastenough/report/fields/json_fields.h"
#include "fastenough/report/fields/run_fields.h"
#include "fastenough/lint/rule_registry.h"

namespace fastenough::rundir {

namespace fs = std::filesystem;

namespace {

// Agent checks that report the model's forward call as their `where`, while lint
// points at the keyword or the log_softmax in the same function: for these codes
// the same function of the same file is a match too.
bool PointsAtForward(const std::string& code) {
  static const std::set<std::string> kCodes = {"autograd-in-eval", "train-mode-in-eval",
                                               "kv-cache-in-scoring", "unused-outputs",
                                               "full-vocab-logits"};
  return kCodes.count(code) > 0;
}

// Runtime finding files under these are libraries, not the user's source.
bool InLibrary(const std::string& path) {
  const std::string sep(1, fs::path::preferred_separator);
  return path.find(sep + "site-packages" + sep) != std::string::npos ||
         path.find(sep + "dist-packages" + sep) != std::string::npos;
}

// The absolute, resolved form of a path (symbolic links followed where they
// exist), relative ones taken from `base`.
std::string Resolved(const fs::path& base, const std::string& file) {
  fs::path p(file);
  if (!p.is_absolute()) p = base / p;
  std::error_code ec;
  fs::path r = fs::weakly_canonical(p, ec);
  return (ec ? p.lexically_normal() : r).string();
}

// The script of `python x.py ...` or the module file of `python -m a.b` under cwd.
std::vector<fs::path> CommandSources(const std::vector<std::string>& command,
                                     const fs::path& cwd) {
  std::vector<fs::path> out;
  for (size_t i = 0; i < command.size(); ++i) {
    const std::string& arg = command[i];
    if (arg.size() >= 3 && arg.compare(arg.size() - 3, 3, ".py") == 0) {
      out.push_back(cwd / arg);
    } else if (arg == "-m" && i + 1 < command.size()) {
      fs::path rel;
      std::string module = command[i + 1];
      size_t start = 0;
      while (true) {
        const size_t dot = module.find('.', start);
        rel /= module.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
      fs::path with_py = rel;
      with_py += ".py";
      out.push_back(cwd / "python" / with_py);
      out.push_back(cwd / with_py);
      out.push_back(cwd / rel / "__main__.py");
    }
  }
  return out;
}

struct Site {
  findings::Finding* finding;
  std::string path;  // resolved
  int line;
  std::string function;
};

}  // namespace

std::optional<LintCrossReference> CrossReferenceLint(std::vector<findings::Finding>* findings,
                                                     const std::string& cwd,
                                                     const std::vector<std::string>& command) {
  const fs::path base(cwd);
  std::vector<Site> sites;
  std::vector<std::string> candidates;
  for (findings::Finding& f : *findings) {
    for (const findings::Location& w : f.where) {
      if (w.file.empty() || w.line <= 0) continue;
      const std::string path = Resolved(base, w.file);
      sites.push_back({&f, path, w.line, w.function});
      candidates.push_back(path);
    }
  }
  for (const fs::path& p : CommandSources(command, base)) candidates.push_back(Resolved(base, p));
  std::vector<std::string> files;
  for (const std::string& s : candidates) {
    std::error_code ec;
    if (fs::path(s).extension() != ".py" || !fs::is_regular_file(s, ec) || InLibrary(s)) continue;
    if (std::find(files.begin(), files.end(), s) == files.end()) files.push_back(s);
  }
  if (files.empty()) return std::nullopt;
  std::sort(files.begin(), files.end());

  lint::FilesLintResult linted = lint::LintFiles(files, lint::RuleSelection::All(), {});
  // Lint findings by (code, path, line), and for forward-call codes by
  // (code, path, function): indices into linted.findings.
  std::map<std::tuple<std::string, std::string, int>, std::vector<size_t>> by_place;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<size_t>> by_function;
  for (size_t i = 0; i < linted.findings.size(); ++i) {
    const lint::LintFinding& lf = linted.findings[i];
    const std::string path = Resolved(base, lf.path);
    by_place[{lf.code, path, lf.line}].push_back(i);
    if (PointsAtForward(lf.code) && !lf.function.empty()) {
      by_function[{lf.code, path, lf.function}].push_back(i);
    }
  }
  std::set<size_t> confirmed;
  for (const Site& site : sites) {
    const std::string& code = site.finding->code;
    const std::vector<size_t>* matches = nullptr;
    auto place = by_place.find({code, site.path, site.line});
    if (place != by_place.end() && !place->second.empty()) {
      matches = &place->second;
    } else {
      auto fn = by_function.find({code, site.path, site.function});
      if (fn != by_function.end()) matches = &fn->second;
    }
    if (matches == nullptr) continue;
    for (size_t i : *matches) {
      confirmed.insert(i);
      const lint::LintFinding& lf = linted.findings[i];
      findings::SourceSite entry{lf.path, lf.line, lf.rule};
      auto& also = site.finding->also_in_source;
      if (std::find(also.begin(), also.end(), entry) == also.end()) also.push_back(entry);
    }
  }
  LintCrossReference out;
  out.files = std::move(files);
  // Equal findings count once (the same finding matched twice).
  std::set<lint::LintFinding> distinct;
  for (size_t i : confirmed) distinct.insert(linted.findings[i]);
  out.confirmed = static_cast<int>(distinct.size());
  for (const lint::LintFinding& lf : linted.findings) {
    if (!distinct.count(lf)) out.unconfirmed.push_back(lf);
  }
  out.errors = std::move(linted.errors);
  return out;
}

void WriteLintCrossReference(report::JsonWriter& w, const LintCrossReference& x) {
  report::fields::WriteObject(w, x);  // report/fields/run_fields.h
}

}  // namespace fastenough::rundir
