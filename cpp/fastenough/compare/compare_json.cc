// CompareResultJson: the fastenough.compare/1 document.
#include <cmath>

#include "fastenough/compare/compare_sets.h"
#include "fastenough/report/json_writer.h"

namespace fastenough::compare {

namespace {
using report::JsonWriter;

void Shape(JsonWriter& w, const char* key, const std::vector<int64_t>& shape) {
  w.Key(key).BeginArray();
  for (int64_t d : shape) w.Int(d);
  w.EndArray();
}

void Side(JsonWriter& w, const char* key, const TensorSet& s) {
  w.Key(key).BeginObject();
  w.Field("path", s.root);
  w.Field("files", s.files);
  w.Field("keys", static_cast<uint64_t>(s.tensors.size()));
  uint64_t bytes = 0;
  for (const TensorRef& t : s.tensors) bytes += t.bytes;
  w.Field("bytes", bytes);
  w.EndObject();
}

void Key(JsonWriter& w, const KeyResult& k) {
  const ElementStats& s = k.stats;
  w.BeginObject();
  w.Field("key", k.key);
  w.Field("verdict", VerdictName(k.verdict));
  if (k.mismatch.empty()) {
    w.Key("mismatch").Null();
  } else {
    w.Field("mismatch", k.mismatch);
  }
  w.Field("dtype", DTypeName(k.a->dtype));
  w.Field("dtype_b", DTypeName(k.b->dtype));
  Shape(w, "shape", k.a->shape);
  Shape(w, "shape_b", k.b->shape);
  w.Field("elements", s.elements);
  w.Field("not_bitwise", s.not_bitwise);
  w.Field("beyond_tolerance", s.beyond_tolerance);
  w.Field("nan_mismatch", s.nan_mismatch);
  w.Field("inf_mismatch", s.inf_mismatch);
  w.Field("max_abs", s.max_abs);
  // Infinite when A holds 0 where B does not: JSON has no infinity.
  if (std::isinf(s.max_rel)) {
    w.Field("max_rel", "inf");
  } else {
    w.Field("max_rel", s.max_rel);
  }
  if (IsFloat(k.a->dtype) && k.mismatch.empty()) {
    w.Field("max_ulp", s.max_ulp);
  } else {
    w.Key("max_ulp").Null();
  }
  if (s.worst_index >= 0) {
    w.Key("worst").BeginObject();
    w.Field("index", s.worst_index);
    // NaN and infinities as text so that they survive JSON.
    for (auto [name, v] : {std::pair{"a", s.worst_a}, std::pair{"b", s.worst_b}}) {
      if (std::isnan(v)) {
        w.Field(name, "nan");
      } else if (std::isinf(v)) {
        w.Field(name, v > 0 ? "inf" : "-inf");
      } else {
        w.Field(name, v);
      }
    }
    w.Field("beyond_tolerance", s.worst_beyond);
    w.EndObject();
  } else {
    w.Key("worst").Null();
  }
  w.Field("file_a", k.a->file);
  w.Field("file_b", k.b->file);
  w.EndObject();
}
}  // namespace

std::string CompareResultJson(const TensorSet& a, const TensorSet& b, const CompareOptions& opt,
                              const CompareResult& r) {
  JsonWriter w(0);
  w.BeginObject();
  w.Field("schema", "fastenough.compare/1");
  w.Field("verdict", VerdictName(r.verdict));
  Side(w, "a", a);
  Side(w, "b", b);
  w.Key("rules").BeginObject();
  w.Field("exact", opt.exact);
  w.Field("nan_equal", opt.nan_equal);
  w.Key("tolerances").BeginObject();
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType t = static_cast<DType>(i);
    if (!IsFloat(t)) continue;
    w.Key(DTypeName(t)).BeginObject();
    w.Field("atol", opt.tol[i].atol).Field("rtol", opt.tol[i].rtol).Field("ulp", opt.tol[i].ulp);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  uint64_t counts[3] = {0, 0, 0}, mismatched = 0;
  for (const KeyResult& k : r.keys) {
    ++counts[static_cast<int>(k.verdict)];
    if (!k.mismatch.empty()) ++mismatched;
  }
  w.Key("counts").BeginObject();
  w.Field("paired", static_cast<uint64_t>(r.keys.size()));
  w.Field("bitwise_equal", counts[0]);
  w.Field("within_tolerance", counts[1]);
  w.Field("differs", counts[2]);
  w.Field("shape_or_dtype_mismatch", mismatched);
  w.Field("missing", static_cast<uint64_t>(r.missing.size()));
  w.Field("extra", static_cast<uint64_t>(r.extra.size()));
  w.EndObject();
  w.Key("missing").BeginArray();
  for (const auto& k : r.missing) w.String(k);
  w.EndArray();
  w.Key("extra").BeginArray();
  for (const auto& k : r.extra) w.String(k);
  w.EndArray();
  w.Key("worst").BeginArray();
  for (size_t i = 0; i < r.worst.size() && static_cast<int>(i) < opt.top; ++i) {
    Key(w, r.keys[r.worst[i]]);
  }
  w.EndArray();
  w.Key("keys").BeginArray();
  for (const KeyResult& k : r.keys) Key(w, k);
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace fastenough::compare
