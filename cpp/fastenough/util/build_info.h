// What this build of the core is: version, the git revision it was built
// from, and which JSON and gzip libraries are compiled in (and whether each
// came from the system or from third_party/). `fastenough --version` prints it,
// so that a bug report says which build it is about.
#pragma once

#include <string>

namespace fastenough::util {

struct BuildInfo {
  std::string version;       // project version, e.g. "0.1.0"
  std::string git_revision;  // short hash at configure time, "+dirty" when the tree had changes;
                             // "unknown" when built outside a git checkout (an sdist)
  std::string json_backend;  // e.g. "simdjson 3.0.1 (system)"
  std::string gzip_backend;  // e.g. "libdeflate 1.14 (system), zlib 1.2.13 (system)"
  std::string compiler;      // e.g. "GCC 12.2.0"
};

BuildInfo GetBuildInfo();

}  // namespace fastenough::util
