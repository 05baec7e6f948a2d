#include "fastenough/report/json_writer.h"

#include <charconv>
#include <cmath>

#include "fastenough/util/utf8.h"

namespace fastenough::report {

namespace {

constexpr char kHex[] = "0123456789abcdef";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

void JsonWriter::AppendEscaped(std::string& out, std::string_view s) {
  out.push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20) {
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
          } else {
            out.push_back(static_cast<char>(c));
          }
      }
      ++i;
      continue;
    }
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  out.push_back('"');
}

void JsonWriter::Newline() {
  if (indent_ <= 0) return;
  out_.push_back('\n');
  out_.append(stack_.size() * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;
  if (!stack_.back().empty) out_.push_back(',');
  stack_.back().empty = false;
  Newline();
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_.push_back('{');
  stack_.push_back({true});
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) Newline();
  out_.push_back('}');
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_.push_back('[');
  stack_.push_back({false});
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) Newline();
  out_.push_back(']');
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  AppendEscaped(out_, key);
  out_.push_back(':');
  if (indent_ > 0) out_.push_back(' ');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view s) {
  BeforeValue();
  AppendEscaped(out_, s);
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t v) {
  BeforeValue();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::Uint(uint64_t v) {
  BeforeValue();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::Double(double v) {
  if (!std::isfinite(v)) return Null();
  if (v == std::trunc(v) && std::fabs(v) < 9007199254740992.0) {
    return Int(static_cast<int64_t>(v));
  }
  BeforeValue();
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  out_.append(buf, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool v) {
  BeforeValue();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_.append(json);
  return *this;
}

JsonWriter& JsonWriter::FieldOrNull(std::string_view key, int64_t v) {
  Key(key);
  return v < 0 ? Null() : Int(v);
}

}  // namespace fastenough::report
