#include "fastenough/trace/json_scan.h"

#include <cstdint>
#include <cstring>

#include "fastenough/util/utf8.h"

namespace fastenough::trace {

const char* SkipString(const char* p, const char* end) {
  ++p;  // opening quote
  while (p < end) {
    const void* q = std::memchr(p, '"', static_cast<size_t>(end - p));
    if (q == nullptr) return nullptr;
    const char* quote = static_cast<const char*>(q);
    // The quote is escaped when an odd number of backslashes precede it.
    size_t backslashes = 0;
    for (const char* b = quote - 1; b >= p && *b == '\\'; --b) ++backslashes;
    if ((backslashes & 1) == 0) return quote + 1;
    p = quote + 1;
  }
  return nullptr;
}

const char* SkipValue(const char* p, const char* end) {
  if (p >= end) return nullptr;
  const char c = *p;
  if (c == '"') return SkipString(p, end);
  if (c != '{' && c != '[') {
    while (p < end) {
      const char d = *p;
      if (d == ',' || d == '}' || d == ']' || d == ' ' || d == '\n' || d == '\r' || d == '\t') {
        return p;
      }
      ++p;
    }
    return nullptr;  // a scalar at the very end may be cut short
  }
  int depth = 0;
  while (p < end) {
    const char d = *p;
    if (d == '"') {
      p = SkipString(p, end);
      if (p == nullptr) return nullptr;
      continue;
    }
    if (d == '{' || d == '[') {
      ++depth;
    } else if (d == '}' || d == ']') {
      if (--depth == 0) return p + 1;
    }
    ++p;
  }
  return nullptr;
}

namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";

}  // namespace

bool FixUtf8(std::string_view in, std::string* out) {
  out->clear();
  bool changed = false;
  for (size_t i = 0; i < in.size();) {
    const size_t n = Utf8SequenceLength(in, i);
    if (n == 0) {
      out->append(kReplacement, 3);
      changed = true;
      ++i;
    } else {
      out->append(in.substr(i, n));
      i += n;
    }
  }
  return changed;
}

RepairResult RepairObject(const char* p, const char* end, std::string* out) {
  RepairResult r;
  out->clear();
  int depth = 0;
  bool in_string = false;
  while (p < end) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x80) {
      const size_t n = Utf8SequenceLength(std::string_view(p, end - p), 0);
      if (n == 0) {
        out->append(kReplacement, 3);
        r.utf8_fixed = true;
        ++p;
      } else {
        out->append(p, n);
        p += n;
      }
      continue;
    }
    if (in_string) {
      if (c == '\\' && p + 1 < end) {
        out->push_back('\\');
        out->push_back(p[1]);
        p += 2;
        continue;
      }
      if (c == '"') {
        const char* n = SkipSpace(p + 1, end);
        if (n >= end || *n == ',' || *n == ':' || *n == '}' || *n == ']') {
          in_string = false;
          out->push_back('"');
        } else {
          out->append("\\\"");
          r.quotes_fixed = true;
        }
        ++p;
        continue;
      }
      if (c < 0x20) {
        static const char kHex[] = "0123456789abcdef";
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
        r.quotes_fixed = true;
        ++p;
        continue;
      }
      out->push_back(static_cast<char>(c));
      ++p;
      continue;
    }
    out->push_back(static_cast<char>(c));
    ++p;
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth <= 0) {
        r.end = p;
        return r;
      }
    }
  }
  return r;  // ran out of text
}

std::string Excerpt(const char* p, const char* end, size_t max_len) {
  std::string s = "\"";
  size_t n = 0;
  for (; p < end && n < max_len; ++p, ++n) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      s.push_back(static_cast<char>(c));
    } else {
      static const char kHex[] = "0123456789abcdef";
      s += "\\x";
      s.push_back(kHex[c >> 4]);
      s.push_back(kHex[c & 15]);
    }
  }
  if (p < end) s += "...";
  s += "\"";
  return s;
}

}  // namespace fastenough::trace
