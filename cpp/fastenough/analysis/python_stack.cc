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
  return ClassifyByName(file) != FrameKind::kUser;
}

namespace {

FrameKind KindOf(const SourceFrames* frames, const std::string& file) {
  return frames != nullptr ? frames->kinds.Classify(file) : ClassifyByName(file);
}

// The call line inside user frame `frame_row` of the call toward `child_row`
// (the Python event directly below it on the path), 0 when not known.
int CallLine(const trace::EventStore& store, const SourceFrames* frames, int32_t frame_row,
             int32_t child_row) {
  if (frames == nullptr || frames->calls.empty() || child_row == trace::kNoRow) return 0;
  return frames->calls.LineOf(store.name_of(frame_row), store.name_of(child_row));
}

UserSite SiteOf(const trace::EventStore& store, const PythonFrame& f, int32_t frame_row,
                int32_t child_row, const SourceFrames* frames) {
  UserSite s;
  s.file = f.file;
  s.function = f.function;
  s.def_line = f.line;
  s.line = CallLine(store, frames, frame_row, child_row);
  return s;
}

}  // namespace

UserSite UserSiteOf(const trace::EventStore& store, const CallTree& tree, int32_t row,
                    const SourceFrames* frames) {
  UserSite none;
  if (row < 0 || tree.parent.empty()) return none;
  std::string inside;
  // The python event last passed on the way up: the callee of the next frame.
  int32_t child = store.kind[row] == trace::EventKind::kPythonFunction ? row : trace::kNoRow;
  for (int32_t p = tree.parent[row]; p != trace::kNoRow; p = tree.parent[p]) {
    if (store.kind[p] != trace::EventKind::kPythonFunction) continue;
    PythonFrame f = ParsePythonFrame(store.name_of(p));
    if (!f.valid()) {
      child = p;  // "nn.Module: Linear_0": a callee name, not a frame
      continue;
    }
    const FrameKind kind = KindOf(frames, f.file);
    if (kind == FrameKind::kUser) {
      UserSite s = SiteOf(store, f, p, child, frames);
      s.inside = std::move(inside);
      return s;
    }
    if (kind == FrameKind::kLibrary && inside.empty() && f.file.front() != '<') {
      inside = f.file + ": " + f.function;
    }
    child = p;
  }
  none.inside = std::move(inside);
  return none;
}

UserSite UserSiteAt(const trace::EventStore& store, const CallTree& tree, int32_t frame_row,
                    int32_t below, const SourceFrames* frames) {
  PythonFrame f = ParsePythonFrame(store.name_of(frame_row));
  if (!f.valid() || KindOf(frames, f.file) != FrameKind::kUser) return UserSite();
  // The Python event right under the frame on the path up from `below`.
  int32_t child = trace::kNoRow;
  for (int32_t p = below; p != trace::kNoRow && p != frame_row; p = tree.parent[p]) {
    if (store.kind[p] == trace::EventKind::kPythonFunction) child = p;
  }
  return SiteOf(store, f, frame_row, child, frames);
}

}  // namespace fastenough::analysis
