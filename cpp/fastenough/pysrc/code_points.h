// Code points of UTF-8 source: decoding one, str.isprintable(), and which
// characters CPython's tokenizer accepts in names. The tokenizer checks names
// with non-ASCII bytes here; lint's unparse writes repr() with them.
#pragma once

#include <cstdint>
#include <string_view>

namespace fastenough::pysrc {

// One code point of UTF-8 text at *i, advancing *i past it (leniently:
// surrogates encoded as 3 bytes come back as themselves; a stray byte as itself).
uint32_t DecodeAt(std::string_view s, size_t* i);

// str.isprintable() for one code point (unassigned code points count as
// printable, unlike CPython's).
bool IsPrintable(uint32_t c);

// _PyUnicode_ScanIdentifier's classes: the first character of a name ('_' or
// XID_Start) and the others (XID_Continue), without NFKC normalisation,
// exactly as CPython 3.11 (Unicode 14) checks a name before it normalises it.
bool IsIdentifierStart(uint32_t c);
bool IsIdentifierContinue(uint32_t c);

}  // namespace fastenough::pysrc
