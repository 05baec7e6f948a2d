// Reader for Chrome-trace JSON as PyTorch tools write it: the Kineto object
// ({"traceEvents": [...], "deviceProperties": ..., ...}), the torch_npu
// trace_view.json array and the legacy torch.autograd.profiler array. The
// three share the event syntax, so one tokenizer + apply pass serves them.
#pragma once

#include <string>

#include "fastenough/trace/event_store.h"
#include "fastenough/trace/load_trace.h"
#include "fastenough/util/file_bytes.h"
#include "fastenough/util/status.h"

namespace fastenough::trace {

// Parses buffer->view() into *store (which must be empty). `name` starts every
// error message (the path, or "<memory>"). Pages of the buffer behind the
// parse position may be released (buffer->ReleaseBefore). Does not Finalize().
Status ReadChromeTrace(PaddedBuffer* buffer, const std::string& name, const LoadOptions& options,
                       EventStore* store);

}  // namespace fastenough::trace
