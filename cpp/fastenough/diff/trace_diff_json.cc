#include "fastenough/diff/trace_diff_json.h"

#include <limits>

#include "fastenough/report/json_writer.h"

namespace fastenough::diff {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();  // written as null

void WriteSide(report::JsonWriter& w, const char* key, bool present, const SideFigures& f,
               bool per_item) {
  w.Key(key);
  if (!present) {
    w.Null();
    return;
  }
  w.BeginObject().Field("calls", f.calls).Field("time_ns", f.time_ns)
      .Field("time_per_item_ns", per_item ? f.time_per_item_ns : kNaN).EndObject();
}

void WriteStrings(report::JsonWriter& w, const char* key, const std::vector<std::string>& v) {
  w.Key(key).BeginArray();
  for (const auto& s : v) w.String(s);
  w.EndArray();
}

void WritePaths(report::JsonWriter& w, const char* key, const std::vector<std::string>& paths) {
  w.Key(key).BeginArray();
  for (const auto& p : paths) w.String(p);
  w.EndArray();
}

void WriteRoofSide(report::JsonWriter& w, const char* key, bool present, const RooflineTotals& t) {
  w.Key(key);
  if (!present) {
    w.Null();
    return;
  }
  w.BeginObject().Field("calls", t.calls).Field("device_ns", t.device_ns)
      .Field("time_at_roof_ns", t.time_at_roof_ns).Field("pct_of_roof", t.pct_of_roof());
  w.Key("bound");
  if (t.bound.empty()) w.Null(); else w.String(t.bound);
  w.Key("device");
  if (t.device.empty()) w.Null(); else w.String(t.device);
  w.Key("dtype");
  if (t.dtype.empty()) w.Null(); else w.String(t.dtype);
  w.EndObject();
}

}  // namespace

std::string TraceDiffToJson(const TraceDiff& d) {
  report::JsonWriter w;
  w.BeginObject();
  w.Field("basis", d.per_step ? "per_steady_step" : "total");
  w.Field("cpu_ops", "all levels, inclusive time");
  w.Key("steady_steps").BeginObject().Field("a", d.steady_steps_a).Field("b", d.steady_steps_b).EndObject();
  WritePaths(w, "paths_a", d.paths_a);
  WritePaths(w, "paths_b", d.paths_b);
  w.Key("per_item");
  if (d.per_item) {
    w.BeginObject().Field("items_per_step_a", d.options.items_per_step_a)
        .Field("items_per_step_b", d.options.items_per_step_b).EndObject();
  } else {
    w.Null();
  }
  w.Key("threshold").BeginObject().Field("min_rel", d.options.min_rel)
      .Field("min_abs_ns", d.options.min_abs_ns).EndObject();
  w.Key("rows").BeginArray();
  for (const DiffRow& r : d.rows) {
    w.BeginObject();
    w.Field("status", RowStatusName(r.status));
    w.Field("kind", RowKindName(r.key.kind));
    w.Field("name", r.key.name);
    w.Key("input_dims");
    if (r.key.input_dims.empty()) w.Null(); else w.String(r.key.input_dims);
    WriteStrings(w, "input_dims_a", r.dims_a);
    WriteStrings(w, "input_dims_b", r.dims_b);
    w.Field("shapes_changed", r.shapes_changed);
    w.Field("entirely", r.entirely);
    WriteSide(w, "a", r.in_a, r.a, d.per_item);
    WriteSide(w, "b", r.in_b, r.b, d.per_item);
    w.Field("delta_calls", r.delta_calls());
    w.Field("delta_time_ns", r.delta_time_ns());
    w.Key("ratio");
    if (r.in_a && r.in_b && r.a.time_ns > 0) w.Double(r.b.time_ns / r.a.time_ns); else w.Null();
    const bool both = r.in_a && r.in_b;
    w.Field("delta_time_per_item_ns", d.per_item ? r.delta_time_per_item_ns() : kNaN);
    w.Field("ratio_per_item", d.per_item && both && r.a.time_per_item_ns > 0
                                  ? r.b.time_per_item_ns / r.a.time_per_item_ns : kNaN);
    w.Field("calls_changed", r.calls_changed);
    w.Field("time_changed", r.time_changed);
    w.EndObject();
  }
  w.EndArray();
  w.Key("unchanged").BeginObject().Field("rows", d.unchanged_rows).Field("a_time_ns", d.unchanged_a_ns)
      .Field("b_time_ns", d.unchanged_b_ns).EndObject();
  w.Key("totals").BeginObject();
  for (const auto& [kind, t] : d.totals) {
    w.Key(RowKindName(kind)).BeginObject().Field("a_time_ns", t.a_ns).Field("b_time_ns", t.b_ns)
        .Field("a_time_per_item_ns", d.per_item ? t.a_per_item_ns : kNaN)
        .Field("b_time_per_item_ns", d.per_item ? t.b_per_item_ns : kNaN)
        .Field("rows_a", t.rows_a).Field("rows_b", t.rows_b).EndObject();
  }
  w.EndObject();
  w.Key("roofline").BeginArray();
  for (const RooflinePair& p : d.roofline) {
    w.BeginObject().Field("op", p.key.op).Field("input_dims", p.key.input_dims);
    w.Key("input_types");
    if (p.key.input_types.empty()) w.Null(); else w.String(p.key.input_types);
    WriteRoofSide(w, "a", p.in_a, p.a);
    WriteRoofSide(w, "b", p.in_b, p.b);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace fastenough::diff
