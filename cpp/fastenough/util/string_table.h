// Interned strings: every event name is stored once and referred to by a
// 32-bit id. Id 0 is the empty string, used for "absent".
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fastenough {

using StringId = uint32_t;
constexpr StringId kNoString = 0;

class StringTable {
 public:
  StringTable();
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  StringId Intern(std::string_view s);
  // Id of s if it was interned, else kNoString.
  StringId Find(std::string_view s) const;
  std::string_view Get(StringId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }

 private:
  // deque: growing never moves stored strings, so the views stay valid.
  std::deque<std::string> storage_;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StringId> index_;
};

}  // namespace fastenough
