// The events `fastenough analyze --annotate` adds to a trace, as Chrome
// trace-event JSON (the format Perfetto UI and chrome://tracing read):
//
// - a process "fastenough findings" with one thread per finding, named
//   "<rank in the report>. <code>", holding one slice per mark (the span
//   the finding is about: a sync and the idle after it, an idle gap, a
//   serial run of kernels), with title, saving and fix in its args;
// - where a mark happens at an event of the trace, an instant event on that
//   event's own track (host thread or device stream) and a flow arrow from
//   the finding's slice to the event.
//
// Every event has category "fastenough" (trace::kAnnotationCategory): our
// reader keeps them apart from profiler data, so an annotated trace analyses
// exactly like the original.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/findings/finding.h"

namespace fastenough::annotate {

// Not a Linux pid (those stop at 2^22): the findings' process cannot take
// over a process of the trace.
constexpr int64_t kFindingsPid = (int64_t{1} << 22) + 1;

struct AnnotationCounts {
  int64_t findings = 0;  // findings annotated (each has at least one slice)
  int64_t slices = 0;    // one per mark
  int64_t instants = 0;  // marks at an event of the trace
  int64_t flows = 0;     // arrows (start + finish pairs)
  int64_t events = 0;    // every event written, metadata included
};

// The annotation events, comma-separated, without enclosing brackets (to be
// inserted into an event list). Findings are numbered in the given order.
std::string AnnotationEventsJson(const std::vector<findings::Finding>& findings,
                                 AnnotationCounts* counts);

// A time in ns as the trace format's microseconds, exactly ("1234.567").
std::string MicrosText(int64_t ns);

}  // namespace fastenough::annotate
