#include "fastenough/analysis/python_stack.h"

#include <charconv>

namespace fastenough::analysis {

PythonFrame ParsePythonFrame(std::string_view name) {
  PythonFrame f;
  // "eval.py(42): score": the last "(" before "): " holds the line.
  const size_t close = name.find("): ");
  if (close == std::string_view::npos) return f;
  const size_t open = name.rfind('(', close);
  if (open == std::string_view::npos || open == 0) return f;
  int line = 0;
  auto [p, ec] = std::from_chars(name.data() + open + 1, name.data() + close, line);
  if (ec != std::errc() || p != name.data() + close) return f;
  f.file = std::string(name.substr(0, open));
  f.line = line;
  f.function = std::string(name.substr(close + 3));
  return f;
}

bool IsLibraryFrame(std::string_view file) {
  return file.empty() || file.front() == '<' || file.find("site-packages/") != std::string_view::npos ||
         file.find("dist-packages/") != std::string_view::npos || file.rfind("torch/", 0) == 0 ||
         file.find("/torch/") != std::string_view::npos || file.rfind("transformers/", 0) == 0;
}

PythonFrame UserFrameOf(const trace::EventStore& store, const CallTree& tree, int32_t row) {
  PythonFrame fallback;
  if (row < 0 || tree.parent.empty()) return fallback;
  for (int32_t p = tree.parent[row]; p != trace::kNoRow; p = tree.parent[p]) {
    if (store.kind[p] != trace::EventKind::kPythonFunction) continue;
    PythonFrame f = ParsePythonFrame(store.name_of(p));
    if (!f.valid()) continue;
    if (!IsLibraryFrame(f.file)) return f;
    if (!fallback.valid()) fallback = std::move(f);
  }
  return fallback;
}

}  // namespace fastenough::analysis
