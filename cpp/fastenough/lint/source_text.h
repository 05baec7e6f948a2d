// The text of a source file as lint needs it (checked as UTF-8 first, by
// util/utf8.h): without its BOM, split at Python's line breaks, and columns
// counted in characters for editors.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace fastenough::lint {

// `text` without a leading UTF-8 byte order mark.
std::string_view StripBom(std::string_view text);

// Lines split at "\r\n", "\r" and "\n" only (str.splitlines() would also break
// at form feeds and other separators and shift every line after them).
std::vector<std::string_view> SplitLines(std::string_view text);

// 1-based character column of a 0-based UTF-8 byte offset within `line` (a
// partial character before the offset does not count, as decode(..., "ignore")).
int CharColumn(std::string_view line, int byte_offset);

}  // namespace fastenough::lint
