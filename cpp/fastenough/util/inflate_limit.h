// How far compressed input may expand: the one stated limit for gzip traces.
//
// A gzip file may inflate to at most FASTENOUGH_MAX_INFLATE_RATIO (default 200)
// times its size on disk, and never less than 256 MiB is allowed. Real profiler
// traces inflate 1-30 times (the HTA corpus and our examples: 30 at most), so
// the default leaves a wide margin while a few MiB can no longer become GBs.
// Set the variable higher (FASTENOUGH_MAX_INFLATE_RATIO=2000) for an unusual
// file; the error that refuses a file says so.
#pragma once

#include <cstdint>

#include "fastenough/util/gzip.h"

namespace fastenough {

inline constexpr uint64_t kDefaultMaxInflateRatio = 200;
inline constexpr uint64_t kMinInflateLimitBytes = 256ull << 20;
inline constexpr const char* kMaxInflateRatioEnv = "FASTENOUGH_MAX_INFLATE_RATIO";

// The ratio in force: the environment variable when it holds a positive
// integer, else the default.
uint64_t MaxInflateRatio();

// GunzipOptions with the limit above (no check of the text's head).
GunzipOptions CompressedInputLimits();

}  // namespace fastenough
