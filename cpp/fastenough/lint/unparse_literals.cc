// The literals of ast.unparse: repr() of str, bytes, int and float values and
// the quoting of string parts (_str_literal_helper), as CPython 3.11 writes
// them. unparse.cc writes the expressions around them.
#include "fastenough/lint/unparse_literals.h"

#include "fastenough/pysrc/code_points.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace fastenough::lint::unparse_literals {

using pysrc::ConstantKind;
using pysrc::Node;

// ---- characters --------------------------------------------------------------

using pysrc::DecodeAt;
using pysrc::IsPrintable;

void AppendHex(std::string& out, uint32_t v, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int k = digits - 1; k >= 0; --k) out += kHex[(v >> (4 * k)) & 0xf];
}

// The unicode_escape codec for one code point (\t, \n, \r, \xhh, \uhhhh, \Uhhhhhhhh).
void AppendEscaped(std::string& out, uint32_t c) {
  if (c == '\\') {
    out += "\\\\";
  } else if (c == '\t') {
    out += "\\t";
  } else if (c == '\n') {
    out += "\\n";
  } else if (c == '\r') {
    out += "\\r";
  } else if (c < 0x100) {
    out += "\\x";
    AppendHex(out, c, 2);
  } else if (c < 0x10000) {
    out += "\\u";
    AppendHex(out, c, 4);
  } else {
    out += "\\U";
    AppendHex(out, c, 8);
  }
}

void AppendUtf8(std::string& out, std::string_view s, size_t from, size_t to) {
  out.append(s.substr(from, to - from));
}

// repr(str): single quotes unless the text has ' and no ".
std::string ReprStr(std::string_view s) {
  const bool dq = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos;
  const char quote = dq ? '"' : '\'';
  std::string out(1, quote);
  for (size_t i = 0; i < s.size();) {
    const size_t start = i;
    const uint32_t c = DecodeAt(s, &i);
    if (c == static_cast<uint32_t>(quote) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (IsPrintable(c)) {
      AppendUtf8(out, s, start, i);
    } else {
      AppendEscaped(out, c);
    }
  }
  out += quote;
  return out;
}

// repr(bytes).
std::string ReprBytes(std::string_view s) {
  const bool dq = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos;
  const char quote = dq ? '"' : '\'';
  std::string out = "b";
  out += quote;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == static_cast<unsigned char>(quote) || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      AppendEscaped(out, c);
    }
  }
  out += quote;
  return out;
}

// ---- numbers -------------------------------------------------------------------

// The decimal digits of an int literal of any size ("0x_ff" -> "255").
std::string IntRepr(const Node& n) {
  if (n.int_fits) return std::to_string(n.int_value);
  std::string_view t = n.text;
  int base = 10;
  if (t.size() > 1 && t[0] == '0' && t[1] != '_' && !(t[1] >= '0' && t[1] <= '9')) {
    const char p = static_cast<char>(t[1] | 0x20);
    base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 10;
    t.remove_prefix(2);
  }
  // Little-endian base-1e9 limbs, multiplied in digit by digit.
  std::vector<uint32_t> limbs;
  for (char ch : t) {
    if (ch == '_') continue;
    const int d = ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10;
    uint64_t carry = static_cast<uint64_t>(d);
    for (uint32_t& l : limbs) {
      const uint64_t v = static_cast<uint64_t>(l) * base + carry;
      l = static_cast<uint32_t>(v % 1000000000);
      carry = v / 1000000000;
    }
    while (carry != 0) {
      limbs.push_back(static_cast<uint32_t>(carry % 1000000000));
      carry /= 1000000000;
    }
  }
  if (limbs.empty()) return "0";
  std::string out = std::to_string(limbs.back());
  for (size_t k = limbs.size() - 1; k-- > 0;) {
    const std::string part = std::to_string(limbs[k]);
    out.append(9 - part.size(), '0');
    out += part;
  }
  return out;
}

// repr(float) ('r' format: shortest round trip; exponent form when the decimal
// point is before -4 or after 16 digits), with CPython's infinity spelling
// for unparse. `add_dot_0`: floats get "2.0"; complex parts get "2".
std::string FloatRepr(double v, bool add_dot_0) {
  if (v > 1.7976931348623157e308) return "1e309";  // repr 'inf' -> _INFSTR
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string_view sci(buf, res.ptr - buf);  // "1.2345e+16"
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  const int decpt = std::atoi(std::string(sci.substr(e + 1)).c_str()) + 1;
  const int n = static_cast<int>(digits.size());
  std::string out;
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (n > 1) out += "." + digits.substr(1);
    const int exp = decpt - 1;
    out += exp < 0 ? "e-" : "e+";
    const std::string ed = std::to_string(exp < 0 ? -exp : exp);
    if (ed.size() < 2) out += '0';
    out += ed;
  } else if (decpt <= 0) {
    out = "0." + std::string(-decpt, '0') + digits;
  } else if (decpt >= n) {
    out = digits + std::string(decpt - n, '0');
    if (add_dot_0) out += ".0";
  } else {
    out = digits.substr(0, decpt) + "." + digits.substr(decpt);
  }
  return out;
}

double ParseFloatText(std::string_view text) {
  std::string clean;
  for (char c : text) {
    if (c != '_' && c != 'j' && c != 'J') clean += c;
  }
  return std::strtod(clean.c_str(), nullptr);
}

// ---- string quoting of _Unparser ------------------------------------------------


// _str_literal_helper: the escaped body and the quotes that can hold it, best first.
std::string StrLiteralHelper(std::string_view s, std::vector<std::string_view>* quotes,
                             bool escape_special_whitespace) {
  std::string esc;
  for (size_t i = 0; i < s.size();) {
    const size_t start = i;
    const uint32_t c = DecodeAt(s, &i);
    if (!escape_special_whitespace && (c == '\n' || c == '\t')) {
      esc += static_cast<char>(c);
    } else if (c == '\\' || !IsPrintable(c)) {
      AppendEscaped(esc, c);
    } else {
      AppendUtf8(esc, s, start, i);
    }
  }
  std::vector<std::string_view> possible;
  const bool newline = esc.find('\n') != std::string::npos;
  for (std::string_view q : *quotes) {
    if (newline && !IsMultiQuote(q)) continue;
    if (esc.find(q) != std::string::npos) continue;
    possible.push_back(q);
  }
  if (possible.empty()) {
    // Fall back to repr, with a quote of the allowed ones when one fits.
    const std::string r = ReprStr(s);
    std::string_view quote = std::string_view(r).substr(0, 1);
    for (std::string_view q : *quotes) {
      if (q.find(r[0]) != std::string_view::npos) {
        quote = q;
        break;
      }
    }
    *quotes = {quote};
    return r.substr(1, r.size() - 2);
  }
  if (!esc.empty()) {
    // Prefer '''"''' over """\"""": quotes that start with the last character go last.
    const char last = esc.back();
    std::stable_partition(possible.begin(), possible.end(),
                          [&](std::string_view q) { return q[0] != last; });
    if (possible[0][0] == last) esc.insert(esc.size() - 1, "\\");
  }
  *quotes = std::move(possible);
  return esc;
}

std::string StrAvoidingBackslashes(std::string_view s) {
  std::vector<std::string_view> quotes(std::begin(kAllQuotes), std::end(kAllQuotes));
  const std::string body = StrLiteralHelper(s, &quotes, false);
  return std::string(quotes[0]) + body + std::string(quotes[0]);
}

}  // namespace fastenough::lint::unparse_literals
