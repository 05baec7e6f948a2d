// Whose code a Python frame of a trace is: the user's, an installed library's
// (torch, Lightning, the standard library, "<built-in ...>"), or fastenough's
// own (its hooks run inside the profiled steps and show up in the trace).
//
// torch.profiler names frames by the file as the interpreter knows it, minus
// the sys.path entry it was found under:
//   "train.py(18): forward"                        the script's directory
//   "torch/nn/modules/module.py(1782): _call_impl" site-packages
//   "pytorch_lightning/loops/fit_loop.py(...)"     site-packages too
//   "fastenough/agent/checks/_util.py(61): ..."    fastenough's directory
// so a relative path alone does not say whose it is. The roots (the
// directories of the traced program's sys.path, by kind) do: the file is
// looked up under each. Without roots, or when no root holds the file, the
// first path component decides (known library packages, "fastenough").
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fastenough::analysis {

enum class FrameKind : uint8_t {
  kUser,     // the program's own code: where findings point
  kLibrary,  // installed packages, the standard library, built-ins
  kTool,     // fastenough itself: never named anywhere in a report
};

struct FrameRoots {
  std::vector<std::string> user;     // the program's directory, its own paths
  std::vector<std::string> library;  // site-packages, the standard library
  std::vector<std::string> tool;     // fastenough's package directory (.../fastenough)
  bool empty() const { return user.empty() && library.empty() && tool.empty(); }
};

class FrameClassifier {
 public:
  explicit FrameClassifier(FrameRoots roots = {});
  // The kind of a frame's file (as ParsePythonFrame gives it). Remembered per
  // file: a trace names the same few hundred files again and again.
  FrameKind Classify(const std::string& file) const;

 private:
  FrameKind Decide(const std::string& file) const;
  FrameRoots roots_;
  mutable std::unordered_map<std::string, FrameKind> cache_;
};

// The kind by the path alone (no roots): the first path component, or the
// directories an installed package lives in.
FrameKind ClassifyByName(std::string_view file);

}  // namespace fastenough::analysis
