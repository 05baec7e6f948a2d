// Entry point of the trace readers: detects the format of a file and hands it
// to the reader for that format (one reader per format, each a tokenizer pass
// that finds event extents and an apply pass that fills the EventStore).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "fastenough/trace/event_store.h"
#include "fastenough/util/gzip.h"
#include "fastenough/util/status.h"

namespace fastenough::trace {

struct LoadOptions {
  // Called now and then with (bytes processed, total bytes) of the JSON text.
  // May be called from the loading thread; must be cheap and thread-safe.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

// Reads a .json or .json.gz trace (Kineto, torch_npu trace_view, legacy array).
// Structural damage (not JSON, wrong top-level type, no event list) returns an
// error Status with the byte offset and an excerpt; per-event damage only
// increments counters in the returned store. The store is Finalize()d.
StatusOr<EventStore> LoadTrace(const std::string& path, const LoadOptions& options = {});

// Same as LoadTrace for JSON text already in memory (tests, fuzzing).
StatusOr<EventStore> ParseTrace(std::string_view json, const LoadOptions& options = {});

// How a gzip trace is inflated: within the stated limit (util/inflate_limit.h),
// and refused after its first block when the text cannot start a JSON trace
// (a bomb of zeros is not inflated to the end before byte 0 is looked at).
GunzipOptions TraceGunzipOptions();

}  // namespace fastenough::trace
