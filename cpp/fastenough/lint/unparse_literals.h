// The literals of ast.unparse (CPython 3.11): repr() of constants and the
// quoting of string parts. Shared by unparse.cc only; split out to keep each
// file about one thing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fastenough/pysrc/syntax_tree.h"

namespace fastenough::lint::unparse_literals {

// The quotes _Unparser may pick, in its order of preference.
inline constexpr std::string_view kAllQuotes[] = {"'", "\"", "\"\"\"", "'''"};
inline bool IsMultiQuote(std::string_view q) { return q.size() == 3; }

// repr(str): single quotes unless the text has ' and no ".
std::string ReprStr(std::string_view s);
// repr(bytes) of raw bytes.
std::string ReprBytes(std::string_view s);
// The decimal digits of an int Constant of any size ("0x_ff" -> "255").
std::string IntRepr(const pysrc::Node& n);
// repr(float); `add_dot_0`: floats get "2.0", complex parts "2".
std::string FloatRepr(double v, bool add_dot_0);
// The value of a float literal's text ("1_000.5", "1e3").
double ParseFloatText(std::string_view text);
// _str_literal_helper: the escaped body of `s` and, in `quotes`, the quotes
// that can hold it, best first.
std::string StrLiteralHelper(std::string_view s, std::vector<std::string_view>* quotes,
                             bool escape_special_whitespace);
// _str_literal_helper's caller for f-string parts: the quoted literal.
std::string StrAvoidingBackslashes(std::string_view s);

}  // namespace fastenough::lint::unparse_literals
