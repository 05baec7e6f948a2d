#include "fastenough/trace/load_trace.h"

namespace fastenough::trace {

StatusOr<EventStore> LoadTrace(const std::string& path, const LoadOptions& options) {
  (void)options;
  return Unimplemented("reader not built yet: " + path);
}

StatusOr<EventStore> ParseTrace(std::string_view json, const LoadOptions& options) {
  (void)json;
  (void)options;
  return Unimplemented("reader not built yet");
}

}  // namespace fastenough::trace
