// Matching identifiers the way the rules' naming conventions are written, without
// regular expressions: identifiers split at '_' into tokens, compared ASCII
// case-insensitively. `(^|_)(eval|test)(_|$)` is "has a token eval or test";
// `(^|_)(model|net)$` is "the last token is model or net".
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace fastenough::lint {

std::string AsciiLower(std::string_view s);

// ASCII case-insensitive equality / substring search.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle);

// The text after the last '_' ("experts" for "num_local_experts"; the whole
// name when it has no '_').
std::string_view LastToken(std::string_view name);

// Some '_'-separated token of `name` equals one of `words`, ignoring case.
bool HasToken(std::string_view name, std::initializer_list<std::string_view> words);

// The last '_'-separated token equals one of `words`, ignoring case.
bool LastTokenIs(std::string_view name, std::initializer_list<std::string_view> words);

bool IsAnyOf(std::string_view s, std::initializer_list<std::string_view> words);

}  // namespace fastenough::lint
