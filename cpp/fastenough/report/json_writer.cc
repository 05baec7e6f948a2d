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

JsonWriter& JsonWriter::PythonFloat(double v) {
  if (!std::isfinite(v)) return Null();
  BeforeValue();
  // The shortest digits that read back to v, as "-d.ddde+XX"; then laid out
  // by repr's rule (Python/pystrtod.c, mode 'r'): fixed when the decimal point
  // falls within -4 < point <= 16, else d.ddd followed by e and the exponent.
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
  if (!text.empty() && text.front() == '-') {
    out_.push_back('-');
    text.remove_prefix(1);
  }
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exponent = 0;
  std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(),
                  exponent);
  const int point = exponent + 1;  // digits before the decimal point
  const int n = static_cast<int>(digits.size());
  if (point > -4 && point <= 16) {
    if (point <= 0) {
      out_ += "0.";
      out_.append(static_cast<size_t>(-point), '0');
      out_ += digits;
    } else if (point >= n) {
      out_ += digits;
      out_.append(static_cast<size_t>(point - n), '0');
      out_ += ".0";
    } else {
      out_.append(digits, 0, static_cast<size_t>(point));
      out_.push_back('.');
      out_.append(digits, static_cast<size_t>(point));
    }
    return *this;
  }
  out_.push_back(digits[0]);
  if (n > 1) {
    out_.push_back('.');
    out_.append(digits, 1);
  }
  out_.push_back('e');
  out_.push_back(exponent < 0 ? '-' : '+');
  const int mag = exponent < 0 ? -exponent : exponent;
  if (mag < 10) out_.push_back('0');
  out_ += std::to_string(mag);
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
