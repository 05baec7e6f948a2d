#include "fastenough/util/status.h"

namespace fastenough {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid-argument";
    case StatusCode::kNotFound: return "not-found";
    case StatusCode::kDataLoss: return "data-loss";
    case StatusCode::kUnimplemented: return "unimplemented";
    case StatusCode::kResourceExhausted: return "resource-exhausted";
    case StatusCode::kInternal: return "internal";
  }
  return "unknown";
}

}  // namespace fastenough
