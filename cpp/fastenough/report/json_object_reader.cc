#include "fastenough/report/json_object_reader.h"

#include <limits>

namespace fastenough::report {

namespace dom = simdjson::dom;

ObjectReader::ObjectReader(dom::element e, std::string where, Status* status)
    : where_(std::move(where)), status_(status) {
  if (!status_->ok()) return;  // e may be empty: nothing is read after a problem
  if (e.get_object().get(object_) != simdjson::SUCCESS) {
    *status_ = InvalidArgument(where_ + ": expected an object");
  }
}

std::string ObjectReader::Path(std::string_view key) const {
  return where_ + "." + std::string(key);
}

void ObjectReader::Fail(std::string_view key, std::string_view what) {
  if (status_->ok()) *status_ = InvalidArgument(Path(key) + ": " + std::string(what));
}

bool ObjectReader::Has(std::string_view key) const {
  if (!status_->ok()) return false;
  dom::element e;
  return object_.at_key(key).get(e) == simdjson::SUCCESS;
}

bool ObjectReader::IsNull(std::string_view key) const {
  if (!status_->ok()) return false;
  dom::element e;
  return object_.at_key(key).get(e) == simdjson::SUCCESS && e.is_null();
}

std::vector<std::pair<std::string, dom::element>> ObjectReader::Members() const {
  std::vector<std::pair<std::string, dom::element>> out;
  if (!status_->ok()) return out;
  for (dom::key_value_pair kv : object_) out.emplace_back(std::string(kv.key), kv.value);
  return out;
}

std::optional<dom::element> ObjectReader::Get(std::string_view key) {
  if (!status_->ok()) return std::nullopt;
  dom::element e;
  if (object_.at_key(key).get(e) != simdjson::SUCCESS) {
    Fail(key, "missing");
    return std::nullopt;
  }
  return e;
}

std::optional<int64_t> ElementInt(dom::element e) {
  int64_t v;
  if (e.get_int64().get(v) == simdjson::SUCCESS) return v;
  return std::nullopt;
}

int64_t ObjectReader::Int(std::string_view key) {
  auto e = Get(key);
  if (!e) return 0;
  auto v = ElementInt(*e);
  if (!v) Fail(key, "expected an integer");
  return v.value_or(0);
}

uint64_t ObjectReader::Uint(std::string_view key) {
  auto e = Get(key);
  if (!e) return 0;
  uint64_t v = 0;
  if (e->get_uint64().get(v) != simdjson::SUCCESS) Fail(key, "expected a non-negative integer");
  return v;
}

int64_t ObjectReader::IntOrNull(std::string_view key, int64_t absent) {
  auto e = Get(key);
  if (!e || e->is_null()) return absent;
  auto v = ElementInt(*e);
  if (!v) Fail(key, "expected an integer or null");
  return v.value_or(absent);
}

double ObjectReader::Double(std::string_view key) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  auto e = Get(key);
  if (!e || e->is_null()) return kNaN;  // the writer's NaN
  double v = kNaN;
  if (e->get_double().get(v) != simdjson::SUCCESS) Fail(key, "expected a number or null");
  return v;
}

bool ObjectReader::Bool(std::string_view key) {
  auto e = Get(key);
  if (!e) return false;
  bool v = false;
  if (e->get_bool().get(v) != simdjson::SUCCESS) Fail(key, "expected true or false");
  return v;
}

std::string ObjectReader::String(std::string_view key) {
  auto e = Get(key);
  if (!e) return {};
  std::string_view v;
  if (e->get_string().get(v) != simdjson::SUCCESS) Fail(key, "expected a string");
  return std::string(v);
}

std::string ObjectReader::StringOrNull(std::string_view key) {
  auto e = Get(key);
  if (!e || e->is_null()) return {};
  std::string_view v;
  if (e->get_string().get(v) != simdjson::SUCCESS) Fail(key, "expected a string or null");
  return std::string(v);
}

ObjectReader ObjectReader::Object(std::string_view key) {
  auto e = Get(key);
  if (!e) return ObjectReader(dom::element(), Path(key), status_);
  return ObjectReader(*e, Path(key), status_);
}

std::optional<ObjectReader> ObjectReader::ObjectOrNull(std::string_view key) {
  auto e = Get(key);
  if (!e || e->is_null()) return std::nullopt;
  return ObjectReader(*e, Path(key), status_);
}

std::vector<dom::element> ObjectReader::Array(std::string_view key) {
  std::vector<dom::element> out;
  auto e = Get(key);
  if (!e) return out;
  dom::array a;
  if (e->get_array().get(a) != simdjson::SUCCESS) {
    Fail(key, "expected an array");
    return out;
  }
  for (dom::element x : a) out.push_back(x);
  return out;
}

std::vector<ObjectReader> ObjectReader::Objects(std::string_view key) {
  std::vector<ObjectReader> out;
  const std::vector<dom::element> items = Array(key);
  for (size_t i = 0; i < items.size() && status_->ok(); ++i) {
    out.emplace_back(items[i], Path(key) + "[" + std::to_string(i) + "]", status_);
  }
  return out;
}

}  // namespace fastenough::report
