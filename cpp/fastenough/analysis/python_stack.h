// Python source locations from with_stack traces. torch.profiler writes one
// python_function slice per frame, named "file.py(line): function", e.g.
//   {"cat":"python_function","name":"eval.py(42): score", ...}
// and also frames without a file ("<built-in method item ...>",
// "torch/nn/modules/module.py(1501): _call_impl").
#pragma once

#include <string>
#include <string_view>

#include "fastenough/analysis/call_tree.h"
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

// True for frames of the libraries rather than the user's code (torch/,
// site-packages, <built-in ...>), which say nothing the user can change.
bool IsLibraryFrame(std::string_view file);

// The innermost user frame enclosing `row` on its thread (library frames are
// skipped; the innermost library frame is the fallback); invalid if none.
PythonFrame UserFrameOf(const trace::EventStore& store, const CallTree& tree, int32_t row);

}  // namespace fastenough::analysis
