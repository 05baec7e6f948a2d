#include "fastenough/lint/source_lint.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "fastenough/lint/module_context.h"
#include "fastenough/lint/source_text.h"
#include "fastenough/lint/suppress.h"
#include "fastenough/pysrc/parser.h"
#include "fastenough/util/utf8.h"

namespace fastenough::lint {

namespace {

uint64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Where a finding starts: for a method call `a.b(...).item()`, at `item`, so
// that the caret points at the method and the line is the method's in a chain
// split over lines (the line the interpreter reports at runtime); else the
// node's start.
void StartOf(const Node& node, int* line, int* byte_col) {
  if (node.is(Kind::kCall) && node.func()->is(Kind::kAttribute)) {
    const Node& f = *node.func();
    *line = f.end_line;
    *byte_col = f.end_col - static_cast<int>(f.name.size());
    return;
  }
  *line = node.line;
  *byte_col = node.col;
}

// The innermost function whose lines contain `line` (the last one starting at
// or after the best so far, as functions are met in source order).
std::string_view EnclosingFunction(const ModuleScope& scope, int line) {
  const Function* best = nullptr;
  for (const Function& fn : scope.functions()) {
    const Node& n = *fn.node;
    const int end = n.end_line != 0 ? n.end_line : n.line;
    if (n.line <= line && line <= end && (best == nullptr || n.line >= best->node->line)) {
      best = &fn;
    }
  }
  return best == nullptr ? std::string_view() : best->name;
}

std::string_view LineAt(const std::vector<std::string_view>& lines, int line) {
  return line > 0 && static_cast<size_t>(line) <= lines.size() ? lines[line - 1]
                                                                : std::string_view();
}

FileError Skipped(std::string_view path, int line, std::string message) {
  return FileError{std::string(path), line, std::move(message)};
}

}  // namespace

LintOutput LintSource(std::string_view path, std::string_view bytes,
                      const RuleSelection& selection, pysrc::Arena& arena) {
  LintOutput out;
  if (auto bad = FirstInvalidUtf8(bytes)) {
    out.error = Skipped(path, 0, "not UTF-8 (byte offset " + std::to_string(*bad) +
                                     "): skipped");
    return out;
  }
  const std::string_view text = StripBom(bytes);
  if (text.find('\0') != std::string_view::npos) {
    // CPython 3.11.4 and later: a SyntaxError without a line.
    out.error = Skipped(path, 0, "syntax error: source code string cannot contain null bytes: "
                                 "skipped");
    return out;
  }
  const uint64_t t0 = NowNs();
  arena.Reset();
  const pysrc::ParseResult parsed = pysrc::ParseModule(text, arena);
  const uint64_t t1 = NowNs();
  out.parse_ns = t1 - t0;
  if (!parsed.ok()) {
    if (parsed.error.too_deep) {
      out.error = Skipped(path, 0, "nested too deeply to parse: skipped");
    } else {
      out.error = Skipped(path, parsed.error.line,
                          "syntax error: " + parsed.error.message + ": skipped");
    }
    return out;
  }

  const std::vector<std::string_view> lines = SplitLines(text);
  const ModuleContext ctx(path, text, *parsed.module);
  std::vector<Hit> hits;
  for (const Rule* rule : selection.rules()) {
    hits.clear();
    rule->check(ctx, hits);
    for (const Hit& hit : hits) {
      const Node& node = *hit.node;
      int line, byte_col;
      StartOf(node, &line, &byte_col);
      const int end_line = node.end_line != 0 ? node.end_line : line;
      const std::string_view source = LineAt(lines, line);
      LintFinding f;
      f.path = std::string(path);
      f.line = line;
      f.col = CharColumn(source, byte_col);
      f.code = std::string(rule->code);
      f.rule = std::string(rule->name);
      f.message = hit.message;
      f.end_line = end_line;
      f.end_col = CharColumn(LineAt(lines, end_line), node.end_col != 0 ? node.end_col : byte_col);
      f.function = std::string(EnclosingFunction(ctx.scope(), node.line));
      f.source_line = std::string(source);
      out.findings.push_back(std::move(f));
    }
  }
  if (!out.findings.empty() && text.find("fastenough") != std::string_view::npos) {
    const Suppressions table(lines);
    std::erase_if(out.findings, [&](const LintFinding& f) {
      return table.Suppressed(f.line, f.code);
    });
  }
  std::sort(out.findings.begin(), out.findings.end());
  out.findings.erase(std::unique(out.findings.begin(), out.findings.end()), out.findings.end());
  out.analyse_ns = NowNs() - t1;
  return out;
}

}  // namespace fastenough::lint
