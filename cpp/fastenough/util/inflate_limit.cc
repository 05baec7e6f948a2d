#include "fastenough/util/inflate_limit.h"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace fastenough {

uint64_t MaxInflateRatio() {
  const char* text = std::getenv(kMaxInflateRatioEnv);
  if (text == nullptr || *text == '\0') return kDefaultMaxInflateRatio;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || v == 0 || text[0] == '-') return kDefaultMaxInflateRatio;
  return static_cast<uint64_t>(v);
}

GunzipOptions CompressedInputLimits() {
  GunzipOptions o;
  o.max_ratio = MaxInflateRatio();
  o.min_limit_bytes = kMinInflateLimitBytes;
  o.raise_hint = std::string("set ") + kMaxInflateRatioEnv + " higher (now " +
                 std::to_string(o.max_ratio) + ") to read it";
  return o;
}

}  // namespace fastenough
