// Small readers of simdjson DOM values shared by the run-directory readers:
// integers that may arrive as doubles, and optional fields.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>

namespace fastenough::rundir {

inline std::optional<int64_t> Int(simdjson::dom::element e) {
  int64_t i;
  if (e.get_int64().get(i) == simdjson::SUCCESS) return i;
  double d;
  if (e.get_double().get(d) == simdjson::SUCCESS) return static_cast<int64_t>(d);
  return std::nullopt;
}

inline std::optional<int64_t> IntField(simdjson::dom::object o, const char* key) {
  simdjson::dom::element e;
  if (o[key].get(e) != simdjson::SUCCESS) return std::nullopt;
  return Int(e);
}

}  // namespace fastenough::rundir
