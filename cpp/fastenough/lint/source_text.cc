#include "fastenough/lint/source_text.h"

#include <algorithm>

namespace fastenough::lint {

std::string_view StripBom(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return text;
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || text[i] == '\r') {
      lines.push_back(text.substr(start, i - start));
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  lines.push_back(text.substr(start));
  return lines;
}

int CharColumn(std::string_view line, int byte_offset) {
  bool ascii = true;
  for (char c : line) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return byte_offset + 1;
  // Count the characters that end within the first byte_offset bytes.
  const size_t end = std::min<size_t>(byte_offset < 0 ? 0 : byte_offset, line.size());
  int chars = 0;
  size_t i = 0;
  while (i < end) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (i + len > end) break;
    ++chars;
    i += len;
  }
  return chars + 1;
}

}  // namespace fastenough::lint
