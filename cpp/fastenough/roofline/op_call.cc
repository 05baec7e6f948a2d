#include "fastenough/roofline/op_call.h"

#include <simdjson.h>

#include <charconv>
#include <cstdlib>

namespace fastenough::roofline {

namespace dom = simdjson::dom;

double OpArg::numel() const {
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(d);
  return n;
}

namespace {

constexpr int64_t kMaxDim = int64_t{1} << 40;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// [[5, 128], [], [[2, 3], [4]]] element -> dims or list_dims.
bool ReadShape(dom::element e, OpArg* a) {
  dom::array arr;
  if (e.get_array().get(arr) != simdjson::SUCCESS) return false;
  for (dom::element x : arr) {
    int64_t v = 0;
    dom::array inner;
    if (x.get_int64().get(v) == simdjson::SUCCESS) {
      if (v < 0 || v > kMaxDim) return false;
      a->dims.push_back(v);
    } else if (x.get_array().get(inner) == simdjson::SUCCESS) {
      std::vector<int64_t> shape;
      for (dom::element y : inner) {
        if (y.get_int64().get(v) != simdjson::SUCCESS || v < 0 || v > kMaxDim) return false;
        shape.push_back(v);
      }
      a->list_dims.push_back(std::move(shape));
    } else {
      return false;
    }
  }
  if (!a->dims.empty() && !a->list_dims.empty()) return false;
  return true;
}

}  // namespace

std::optional<std::vector<int64_t>> OpArg::ints() const {
  std::string_view s = Trim(concrete);
  if (s.empty()) return std::nullopt;
  std::vector<int64_t> out;
  if (s.front() == '[') {
    if (s.back() != ']') return std::nullopt;
    s = Trim(s.substr(1, s.size() - 2));
    if (s.empty()) return out;
    while (true) {
      const size_t comma = s.find(',');
      auto v = ParseInt(s.substr(0, comma));
      if (!v) return std::nullopt;
      out.push_back(*v);
      if (comma == std::string_view::npos) break;
      s.remove_prefix(comma + 1);
    }
    return out;
  }
  auto v = ParseInt(s);
  if (!v) return std::nullopt;
  out.push_back(*v);
  return out;
}

std::optional<int64_t> OpArg::int_value() const {
  auto v = ints();
  if (!v || v->size() != 1 || Trim(concrete).front() == '[') return std::nullopt;
  return v->front();
}

std::optional<bool> OpArg::bool_value() const {
  std::string_view s = Trim(concrete);
  if (s == "True" || s == "true" || s == "1") return true;
  if (s == "False" || s == "false" || s == "0") return false;
  return std::nullopt;
}

std::optional<double> OpArg::double_value() const {
  std::string_view s = Trim(concrete);
  if (s.empty()) return std::nullopt;
  std::string z(s);
  char* end = nullptr;
  const double v = std::strtod(z.c_str(), &end);
  if (end != z.c_str() + z.size()) return std::nullopt;
  return v;
}

StatusOr<OpCall> ParseOpCall(std::string_view name, std::string_view input_dims_json,
                             std::string_view input_types_json, std::string_view concrete_json) {
  OpCall call;
  call.name = std::string(name);
  dom::parser parser;
  // Each parse result is consumed before the next parse (the parser reuses its buffer).
  dom::array dims;
  if (parser.parse(input_dims_json).get_array().get(dims) != simdjson::SUCCESS) {
    return InvalidArgument(call.name + ": Input Dims is not a JSON list: " +
                           std::string(input_dims_json.substr(0, 80)));
  }
  for (dom::element e : dims) {
    OpArg a;
    if (!ReadShape(e, &a)) {
      return InvalidArgument(call.name + ": an Input Dims entry is not a shape: " +
                             std::string(input_dims_json.substr(0, 80)));
    }
    call.args.push_back(std::move(a));
  }
  dom::array types;
  if (parser.parse(input_types_json).get_array().get(types) != simdjson::SUCCESS) {
    return InvalidArgument(call.name + ": Input type is not a JSON list: " +
                           std::string(input_types_json.substr(0, 80)));
  }
  size_t i = 0;
  for (dom::element e : types) {
    std::string_view t;
    if (e.get_string().get(t) != simdjson::SUCCESS || i >= call.args.size()) {
      return InvalidArgument(call.name + ": Input type does not match Input Dims");
    }
    call.args[i].type = std::string(t);
    // A shape with a type that is no dtype we know (a quantized tensor) stays
    // kUnknown: the models then say "no model" rather than guess its size.
    call.args[i].dtype = DtypeFromTraceName(t);
    ++i;
  }
  if (i != call.args.size()) return InvalidArgument(call.name + ": Input type does not match Input Dims");
  if (!Trim(concrete_json).empty()) {
    dom::array conc;
    if (parser.parse(concrete_json).get_array().get(conc) != simdjson::SUCCESS) {
      return InvalidArgument(call.name + ": Concrete Inputs is not a JSON list");
    }
    i = 0;
    for (dom::element e : conc) {
      std::string_view t;
      if (e.get_string().get(t) != simdjson::SUCCESS || i >= call.args.size()) {
        return InvalidArgument(call.name + ": Concrete Inputs does not match Input Dims");
      }
      call.args[i++].concrete = std::string(t);
    }
    if (i != call.args.size()) {
      return InvalidArgument(call.name + ": Concrete Inputs does not match Input Dims");
    }
    call.has_concrete = true;
  }
  return call;
}

}  // namespace fastenough::roofline
