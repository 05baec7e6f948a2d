// Python source locations from with_stack traces. torch.profiler writes one
// python_function slice per frame, named "file.py(line): function", e.g.
//   {"cat":"python_function","name":"eval.py(42): score", ...}
// where the line is that of the function's def, and also frames without a
// file ("<built-in method item ...>", "nn.Module: Linear_0").
#pragma once

#include <string>
#include <string_view>

#include "fastenough/analysis/call_sites.h"
#include "fastenough/analysis/call_tree.h"
#include "fastenough/analysis/frame_kinds.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct PythonFrame {
  std::string file;
  int line = 0;
  std::string function;
  bool valid() const { return !file.empty(); }
};

// Parses "file.py(42): fn"; an invalid frame when the name has another shape.
PythonFrame ParsePythonFrame(std::string_view name);

// True for frames that are not the user's by their path alone (torch/,
// site-packages, <built-in ...>, fastenough): see frame_kinds.h.
bool IsLibraryFrame(std::string_view file);

// What a trace knows of a program's source: whose each frame is, and the
// lines of the calls frames made (the agent's callsites file). Both may be
// empty (a trace analysed on its own).
struct SourceFrames {
  FrameClassifier kinds;
  CallSites calls;
};

// The user's line behind a host event: the innermost frame of the user's own
// code enclosing it (fastenough's frames are skipped, library frames become
// `inside`), with the line of the call that led to the event when the
// callsites file knows it (`line`), else only the line of its def (`def_line`).
struct UserSite {
  std::string file;
  std::string function;
  int line = 0;      // the call inside the user's function; 0 when unknown
  int def_line = 0;  // the function's def, as the trace names the frame
  std::string inside;  // the innermost library frame below it: "torch/optim/lbfgs.py: step"
  bool valid() const { return !file.empty(); }
};

// kinds: nullptr classifies by the path alone.
UserSite UserSiteOf(const trace::EventStore& store, const CallTree& tree, int32_t row,
                    const SourceFrames* frames);

// The user site when `row` is itself a user frame (a scope of a serial
// loop): its call line is the line of the call that led to `below` (a row
// under it on the same thread), when known.
UserSite UserSiteAt(const trace::EventStore& store, const CallTree& tree, int32_t frame_row,
                    int32_t below, const SourceFrames* frames);

}  // namespace fastenough::analysis
