#include "fastenough/util/build_info.h"

#include <libdeflate.h>
#include <zlib.h>

#include <simdjson.h>

// Set by cpp/CMakeLists.txt on this file only, so that a new revision
// recompiles one file.
#ifndef FASTENOUGH_GIT_REVISION
#define FASTENOUGH_GIT_REVISION "unknown"
#endif
#ifndef FASTENOUGH_SIMDJSON_ORIGIN
#define FASTENOUGH_SIMDJSON_ORIGIN "system"
#endif
#ifndef FASTENOUGH_LIBDEFLATE_ORIGIN
#define FASTENOUGH_LIBDEFLATE_ORIGIN "system"
#endif
#ifndef FASTENOUGH_ZLIB_ORIGIN
#define FASTENOUGH_ZLIB_ORIGIN "system"
#endif

namespace fastenough::util {

namespace {
std::string Compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "GCC " __VERSION__;
#else
  return "unknown compiler";
#endif
}
}  // namespace

BuildInfo GetBuildInfo() {
  BuildInfo info;
  info.version = FASTENOUGH_VERSION;
  info.git_revision = FASTENOUGH_GIT_REVISION;
  // SIMDJSON_VERSION is a bare token (3.0.1), not a string: use its parts.
  info.json_backend = "simdjson " + std::to_string(simdjson::SIMDJSON_VERSION_MAJOR) + "." +
                      std::to_string(simdjson::SIMDJSON_VERSION_MINOR) + "." +
                      std::to_string(simdjson::SIMDJSON_VERSION_REVISION) + " (" +
                      FASTENOUGH_SIMDJSON_ORIGIN + ")";
  info.gzip_backend = std::string("libdeflate ") + LIBDEFLATE_VERSION_STRING + " (" +
                      FASTENOUGH_LIBDEFLATE_ORIGIN + "), zlib " + ZLIB_VERSION + " (" +
                      FASTENOUGH_ZLIB_ORIGIN + ")";
  info.compiler = Compiler();
  return info;
}

}  // namespace fastenough::util
