// Suppression comments: `# fastenough: ignore[code, code]` or a bare
// `# fastenough: ignore`. The comment applies to findings on its own line, or,
// when it stands alone on a line, to the line below it.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fastenough::lint {

class Suppressions {
 public:
  // `lines`: the file split at its line breaks (line 1 first).
  explicit Suppressions(const std::vector<std::string_view>& lines);

  bool Suppressed(int line, std::string_view code) const;

 private:
  std::map<int, std::set<std::string, std::less<>>> codes_;  // "*": every code
};

}  // namespace fastenough::lint
