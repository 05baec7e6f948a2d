// The tokenizer half of the trace readers: a byte scanner that knows JSON
// strings, escapes and nesting but builds nothing. It finds the top-level
// keys and the byte extent of each element of the event list, so that the
// apply pass can hand exactly one event at a time to simdjson, and so that a
// damaged event can be repaired or skipped without losing the rest.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fastenough::trace {

inline const char* SkipSpace(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
  return p;
}

// p points at an opening '"'. Returns the byte after the closing quote, or
// nullptr when the text ends first.
const char* SkipString(const char* p, const char* end);

// p points at the first byte of a value. Returns the byte after it (objects
// and arrays balanced, strings honoured; a scalar ends before , } ] or space),
// or nullptr when the text ends first.
const char* SkipValue(const char* p, const char* end);

struct RepairResult {
  const char* end = nullptr;  // byte after the repaired object; nullptr: ran out
  bool quotes_fixed = false;  // stray quotes or control bytes were escaped
  bool utf8_fixed = false;    // invalid UTF-8 replaced by U+FFFD
};

// Lenient rescan of an object that simdjson rejected, from its '{': a '"'
// closes a string only when the next non-space byte is one of , : } ] (so
// `"name": "foo"bar"` is read as the string foo"bar), raw control bytes in
// strings are escaped and invalid UTF-8 is replaced. Writes the repaired
// object text to *out.
RepairResult RepairObject(const char* p, const char* end, std::string* out);

// Replaces invalid UTF-8 sequences by U+FFFD. Returns true if anything changed.
bool FixUtf8(std::string_view in, std::string* out);

// A short printable excerpt of the text at `p` for error messages.
std::string Excerpt(const char* p, const char* end, size_t max_len = 16);

}  // namespace fastenough::trace
