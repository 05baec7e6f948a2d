#include "fastenough/lint/suppress.h"

namespace fastenough::lint {

namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

size_t SkipSpace(std::string_view s, size_t i) {
  while (i < s.size() && IsSpace(s[i])) ++i;
  return i;
}

std::string_view Strip(std::string_view s) {
  size_t b = SkipSpace(s, 0), e = s.size();
  while (e > b && IsSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// The first `#\s*fastenough:\s*ignore(?:\[([^\]]*)\])?` of a line: true when
// found; `*codes` is the bracket's text, `*bracket` whether there was one.
bool FindIgnore(std::string_view line, std::string_view* codes, bool* bracket) {
  for (size_t hash = line.find('#'); hash != std::string_view::npos;
       hash = line.find('#', hash + 1)) {
    size_t i = SkipSpace(line, hash + 1);
    if (line.substr(i, 11) != "fastenough:") continue;
    i = SkipSpace(line, i + 11);
    if (line.substr(i, 6) != "ignore") continue;
    i += 6;
    *bracket = false;
    if (i < line.size() && line[i] == '[') {
      size_t close = line.find(']', i + 1);
      if (close != std::string_view::npos) {
        *bracket = true;
        *codes = line.substr(i + 1, close - i - 1);
      }
    }
    return true;
  }
  return false;
}

}  // namespace

Suppressions::Suppressions(const std::vector<std::string_view>& lines) {
  for (size_t n = 0; n < lines.size(); ++n) {
    std::string_view text = lines[n];
    if (text.find("fastenough") == std::string_view::npos) continue;
    std::string_view listed;
    bool bracket = false;
    if (!FindIgnore(text, &listed, &bracket)) continue;
    std::set<std::string, std::less<>> codes;
    if (!bracket || listed.empty()) {
      codes.insert("*");
    } else {
      size_t start = 0;
      while (true) {
        size_t comma = listed.find(',', start);
        std::string_view code = Strip(listed.substr(start, comma == std::string_view::npos
                                                               ? comma : comma - start));
        if (!code.empty()) codes.insert(std::string(code));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
    }
    const int line = static_cast<int>(n) + 1;
    codes_[line].insert(codes.begin(), codes.end());
    std::string_view rest = Strip(text);
    if (!rest.empty() && rest[0] == '#') codes_[line + 1].insert(codes.begin(), codes.end());
  }
}

bool Suppressions::Suppressed(int line, std::string_view code) const {
  auto it = codes_.find(line);
  if (it == codes_.end() || it->second.empty()) return false;
  return it->second.count(code) > 0 || it->second.count("*") > 0;
}

}  // namespace fastenough::lint
