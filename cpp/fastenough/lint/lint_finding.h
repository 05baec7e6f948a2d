// What lint reports: a finding in source, or a file it skipped.
#pragma once

#include <string>
#include <tuple>

namespace fastenough::lint {

struct LintFinding {
  std::string path;
  int line = 0;  // 1-based
  int col = 0;   // 1-based, in characters
  std::string code;     // shared with the runtime findings where the meaning is the same
  std::string rule;     // the rule within the code that matched
  std::string message;
  int end_line = 0;
  int end_col = 0;      // 1-based, exclusive
  std::string function;     // enclosing function ("" at module level)
  std::string source_line;  // the text of `line`, without its newline

  auto Key() const {
    return std::tie(path, line, col, code, rule, message, end_line, end_col, function,
                    source_line);
  }
  bool operator<(const LintFinding& o) const { return Key() < o.Key(); }
  bool operator==(const LintFinding& o) const { return Key() == o.Key(); }
};

// A file that was skipped: not UTF-8, a syntax error, unreadable.
struct FileError {
  std::string path;
  int line = 0;  // 0 when the problem has no line
  std::string message;

  auto Key() const { return std::tie(path, line, message); }
  bool operator<(const FileError& o) const { return Key() < o.Key(); }
};

}  // namespace fastenough::lint
