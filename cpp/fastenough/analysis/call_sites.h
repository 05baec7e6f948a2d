// The line of each call a Python frame made, from the agent's
// trace/rank<R>.callsites.json (agent/profile_window.py):
//   {"schema": "fastenough.callsites/1", "trace": "rank0.pt.trace.json.gz",
//    "calls": [["train.py(18): forward", "nn.Module: Linear_0", 29, 1538], ...]}
// A trace names a frame by the line of its def only ("train.py(18): forward");
// the line of the call inside it comes from here: the caller frame's name,
// the name of the frame or built-in it called (as the trace names both), the
// line of the call and how often it was made from there.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "fastenough/util/status.h"

namespace fastenough::analysis {

class CallSites {
 public:
  // Parses the document; a malformed one is an error (the caller goes on
  // without call lines).
  static StatusOr<CallSites> Parse(std::string_view json);
  // The sidecar of a trace file (rank0.pt.trace.json[.gz] ->
  // rank0.callsites.json); an empty table when there is none.
  static CallSites ForTrace(const std::string& trace_path);

  // The line from which `caller` called `callee` most often; 0 when unknown.
  int LineOf(std::string_view caller, std::string_view callee) const;
  bool empty() const { return lines_.empty(); }

 private:
  struct Best {
    int line = 0;
    int64_t count = 0;
  };
  std::unordered_map<std::string, Best> lines_;  // caller + '\n' + callee -> line
};

}  // namespace fastenough::analysis
