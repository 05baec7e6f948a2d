// Finding: one diagnosed waste (docs/report-schema.md), produced by a detector
// and serialised by the report writer. Codes come from the catalog
// (docs/findings.md); they are stable identifiers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "fastenough/timeline/interval_set.h"

namespace fastenough::findings {

enum class Verdict : uint8_t {
  kAvoidable,             // waste with a known fix
  kBounded,               // reasonable under the current protocol (say what bounds it)
  kInsufficientEvidence,  // a suspicion; name the measurement that would decide
};
const char* VerdictName(Verdict v);

// A named piece of evidence; the unit is part of the key ("calls_per_step").
using EvidenceValue = std::variant<int64_t, double, std::string>;

// Where the waste is: a source location, or an op/kernel/stream. A source
// location is the user's own code: `line` is the line of the call (0 when only
// the function is known, with its def at `def_line`); a library frame below
// it is named in `inside` ("torch/optim/lbfgs.py: step"), never as the place.
struct Location {
  std::string file;
  int line = 0;
  std::string function;
  std::string op;
  std::string kernel;
  int64_t stream = -1;
  int rank = -1;
  int def_line = 0;
  std::string inside;
};

// A place in the program's source that lint matched: file, line, and the rule.
struct SourceSite {
  std::string file;
  int line = 0;
  std::string rule;
  bool operator==(const SourceSite&) const = default;
};

struct Saving {
  int64_t per_step_ns = -1;   // -1: not known
  double share_of_step = -1;  // fraction of a steady step; -1: not known
  int64_t total_ns = -1;      // over the whole trace window; -1: not known
  bool upper_bound = true;    // savings are upper bounds from measured time
};

// A place in the trace, as the trace names it: the track (pid/tid, or the
// text a trace used instead of a number) and a time inside one of its events.
// Annotated traces (`fastenough analyze --annotate`) point their arrows here.
struct TracePoint {
  int64_t pid = 0;
  int64_t tid = 0;
  std::string pid_text;  // non-empty: the trace wrote "pid" as this string
  std::string tid_text;
  int64_t ts_ns = 0;
};

// A span of the trace that a finding is about (a sync and the idle after it,
// an idle gap, a serial run of kernels, an exposed copy), with the event it
// happens at when there is one. Not part of the report JSON: marks are for
// annotated traces, where they become slices, instant events and arrows.
struct Mark {
  std::string what;  // "host sync cudaStreamSynchronize", "idle gap", ...
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::optional<TracePoint> at;
};

struct Finding {
  std::string code;
  Verdict verdict = Verdict::kInsufficientEvidence;
  std::string title;
  std::string source = "trace";  // trace | agent | lint | sampler
  std::vector<std::pair<std::string, EvidenceValue>> evidence;
  std::vector<Location> where;
  Saving saving;
  std::string action;
  int rank = -1;  // the rank it was found on; -1 for cross-rank findings
  std::vector<Mark> marks;  // at most kMaxMarks, time order not guaranteed
  // The time (on the trace's clock) whose removal its saving counts; trace
  // findings only, not part of the report JSON (findings/overlaps.h).
  timeline::IntervalSet claimed;
  // Codes of the findings whose savings count some of the same time: their
  // savings are not to be added up (findings/overlaps.h).
  std::vector<std::string> overlaps;
  // Where lint saw the same in the source (a run's report, rundir/lint_cross_reference.h).
  std::vector<SourceSite> also_in_source;
};

// Marks kept per finding: enough to find the pattern in a viewer, few enough
// that the annotated trace stays readable.
constexpr size_t kMaxMarks = 20;

}  // namespace fastenough::findings
