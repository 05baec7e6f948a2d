// `fastenough analyze TRACE --annotate OUT`: the trace written back with the
// findings in it (annotation_events.h), openable in Perfetto UI and
// chrome://tracing. The input's bytes are copied unchanged; the annotation
// events go in just before the ']' that closes its event list, so whatever
// the trace held (metadata, device properties, events we do not read) stays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/annotate/annotation_events.h"
#include "fastenough/findings/finding.h"
#include "fastenough/pipeline/analyze.h"
#include "fastenough/report/report.h"
#include "fastenough/util/status.h"

namespace fastenough::annotate {

struct AnnotatedTrace {
  report::Report report;  // the analysis of the input, as `analyze` gives it
  AnnotationCounts counts;
};

// Analyses one trace and writes it with its findings annotated to the open
// descriptor out_fd (gzip when `gzip`, plain JSON otherwise); out_name names it
// in messages. The descriptor stays open: the caller chose what it is (a
// temporary beside the destination, renamed when this succeeds; a device; a
// FIFO) and commits or removes it. A truncated trace (its event list never
// closes) is refused before a byte is written: the output would be as damaged
// as the input.
StatusOr<AnnotatedTrace> AnnotateTrace(const std::string& in_path, int out_fd,
                                       const std::string& out_name, bool gzip,
                                       const pipeline::AnalyzeOptions& options = {});

// The text of a trace with `events` inserted before the ']' at
// close_offset (comma-joined to the list's last element when it has any).
StatusOr<std::string> InsertEvents(std::string_view trace_text, int64_t close_offset,
                                   std::string_view events);

}  // namespace fastenough::annotate
