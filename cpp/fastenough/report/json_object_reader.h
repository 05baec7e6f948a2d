// Reads the fields of a JSON document that fastenough wrote itself (a rank
// summary), through simdjson's DOM, and names the first field that is missing
// or of the wrong type ("summary.json: $.devices[1].busy_ns: expected an
// integer") instead of guessing: such a file was not written by this
// version, or was edited by hand.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fastenough/util/status.h"

namespace fastenough::report {

class ObjectReader {
 public:
  // `where` names the object in messages ("$", "$.devices[2]"); the first
  // problem goes to *status (shared by every reader of one document).
  ObjectReader(simdjson::dom::element e, std::string where, Status* status);

  bool ok() const { return status_->ok(); }
  const std::string& where() const { return where_; }

  int64_t Int(std::string_view key);
  uint64_t Uint(std::string_view key);
  int64_t IntOrNull(std::string_view key, int64_t absent = -1);  // null -> absent
  double Double(std::string_view key);                           // null -> NaN
  bool Bool(std::string_view key);
  std::string String(std::string_view key);
  std::string StringOrNull(std::string_view key);  // null -> ""
  ObjectReader Object(std::string_view key);
  std::optional<ObjectReader> ObjectOrNull(std::string_view key);
  std::vector<ObjectReader> Objects(std::string_view key);  // an array of objects
  std::vector<simdjson::dom::element> Array(std::string_view key);
  // Whether the key is there (any value).
  bool Has(std::string_view key) const;
  // Whether the key is there and null.
  bool IsNull(std::string_view key) const;
  // Every (key, value) of the object, in document order.
  std::vector<std::pair<std::string, simdjson::dom::element>> Members() const;

  // Records a problem with `key` of this object ("expected ...").
  void Fail(std::string_view key, std::string_view what);

 private:
  std::optional<simdjson::dom::element> Get(std::string_view key);
  std::string Path(std::string_view key) const;

  simdjson::dom::object object_;
  std::string where_;
  Status* status_;
};

// Element readers for array items ("$.kernels[3]").
std::optional<int64_t> ElementInt(simdjson::dom::element e);

}  // namespace fastenough::report
