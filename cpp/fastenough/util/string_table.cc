#include "fastenough/util/string_table.h"

namespace fastenough {

StringTable::StringTable() {
  views_.emplace_back();
  index_.emplace(std::string_view(), kNoString);
}

StringId StringTable::Intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  storage_.emplace_back(s);
  std::string_view stored = storage_.back();
  auto id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

StringId StringTable::Find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kNoString : it->second;
}

}  // namespace fastenough
