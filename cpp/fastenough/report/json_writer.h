// A small dependency-free streaming JSON writer. It tracks commas itself, so
// callers only say Key / Value / Begin / End.
//
// Strings: '"', '\\' and every control character below 0x20 are escaped
// (\n \t \r \b \f, others as \u00XX); DEL and non-ASCII pass through when they
// form valid UTF-8, and every invalid byte (stray continuation, overlong form,
// surrogate, > U+10FFFF, truncated sequence) becomes U+FFFD, so the output is
// always valid UTF-8 JSON whatever bytes a trace held.
// Numbers: integers as written; a double that is NaN or infinite is null;
// integral doubles below 2^53 print without a fraction ("1500", not "1500.0");
// others with the shortest text that reads back to the same double.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fastenough::report {

class JsonWriter {
 public:
  // indent = 0: compact; otherwise pretty-printed with that many spaces.
  explicit JsonWriter(int indent = 0) : indent_(indent) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);

  JsonWriter& String(std::string_view s);
  JsonWriter& Int(int64_t v);
  JsonWriter& Uint(uint64_t v);
  JsonWriter& Double(double v);
  // A double as Python's json.dumps writes a float (repr): "2.0", "0.0001",
  // "1e-05", "1e+16" (fixed between 1e-4 and 1e16, else an exponent of two
  // digits or more); not finite: null. For records Python wrote (meta.json).
  JsonWriter& PythonFloat(double v);
  JsonWriter& Bool(bool v);
  JsonWriter& Null();
  // Inserts pre-serialised JSON text as one value (trusted to be valid).
  JsonWriter& Raw(std::string_view json);

  // Key + value shorthands.
  JsonWriter& Field(std::string_view key, std::string_view s) { return Key(key).String(s); }
  JsonWriter& Field(std::string_view key, const char* s) { return Key(key).String(s); }
  JsonWriter& Field(std::string_view key, int64_t v) { return Key(key).Int(v); }
  JsonWriter& Field(std::string_view key, int v) { return Key(key).Int(v); }
  JsonWriter& Field(std::string_view key, uint64_t v) { return Key(key).Uint(v); }
  JsonWriter& Field(std::string_view key, double v) { return Key(key).Double(v); }
  JsonWriter& Field(std::string_view key, bool v) { return Key(key).Bool(v); }
  // -1 (or any negative) means absent: null.
  JsonWriter& FieldOrNull(std::string_view key, int64_t v);

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

  // Appends s as a quoted, escaped JSON string to out.
  static void AppendEscaped(std::string& out, std::string_view s);

 private:
  void BeforeValue();
  void Newline();

  struct Level {
    bool is_object;
    bool empty = true;
  };
  std::string out_;
  std::vector<Level> stack_;
  bool after_key_ = false;
  int indent_;
};

}  // namespace fastenough::report
