#include "fastenough/lint/name_match.h"

namespace fastenough::lint {

namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle) {
  if (needle.size() > haystack.size()) return false;
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (EqualsIgnoreCase(haystack.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

std::string_view LastToken(std::string_view name) {
  size_t u = name.rfind('_');
  return u == std::string_view::npos ? name : name.substr(u + 1);
}

bool HasToken(std::string_view name, std::initializer_list<std::string_view> words) {
  size_t start = 0;
  while (true) {
    size_t u = name.find('_', start);
    std::string_view token = name.substr(start, u == std::string_view::npos ? u : u - start);
    for (std::string_view w : words) {
      if (EqualsIgnoreCase(token, w)) return true;
    }
    if (u == std::string_view::npos) return false;
    start = u + 1;
  }
}

bool LastTokenIs(std::string_view name, std::initializer_list<std::string_view> words) {
  std::string_view token = LastToken(name);
  for (std::string_view w : words) {
    if (EqualsIgnoreCase(token, w)) return true;
  }
  return false;
}

bool IsAnyOf(std::string_view s, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (s == w) return true;
  }
  return false;
}

}  // namespace fastenough::lint
