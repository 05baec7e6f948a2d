#include "fastenough/report/rank_summary_json.h"

#include <simdjson.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "fastenough/report/depth_json.h"
#include "fastenough/report/json_object_reader.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/report_json.h"

namespace fastenough::report {

namespace dom = simdjson::dom;
using analysis::kStepCategoryCount;
using analysis::StepCategoryName;

std::string RankSummaryToJson(const RankSummary& s) {
  const analysis::RankAnalysis& a = s.analysis;
  // Compact: a summary is read by programs (jq pretty-prints it).
  JsonWriter w(0);
  w.BeginObject();
  w.Field("schema", kRankSummarySchema);
  w.Field("tool_version", FASTENOUGH_VERSION);
  w.Field("rank", a.rank);
  w.Field("input_index", static_cast<uint64_t>(s.input_index));
  w.Key("input");
  WriteInput(w, s.input);
  WriteMeta(w, s.meta);
  w.Key("counters").BeginArray();
  for (size_t c = 0; c < trace::kCounterCount; ++c) {
    const auto counter = static_cast<trace::Counter>(c);
    if (s.counters.Get(counter) == 0) continue;
    w.BeginObject();
    w.Field("name", trace::GetCounterInfo(counter).name);
    w.Field("count", s.counters.Get(counter));
    w.EndObject();
  }
  w.EndArray();
  w.Key("steps");
  WriteRankSteps(w, a);
  w.Key("devices").BeginArray();
  for (const auto& d : a.devices) WriteDevice(w, a.rank, d);
  w.EndArray();
  w.Key("launch");
  WriteRankLaunch(w, a);
  w.Key("kernels").BeginArray();
  for (const auto& k : a.kernels) {
    w.BeginObject().Field("name", k.name).Field("count", k.count).Field("total_ns", k.total_ns);
    w.Field("busy_ns", k.busy_ns).EndObject();
  }
  w.EndArray();
  w.Key("ops").BeginArray();
  for (const auto& o : a.ops) {
    w.BeginObject().Field("name", o.name).Field("count", o.count).Field("total_ns", o.total_ns);
    w.Field("self_ns", o.self_ns).EndObject();
  }
  w.EndArray();
  w.Key("step_breakdown");
  if (HasStepBreakdown(a)) WriteRankStepBreakdown(w, a); else w.Null();
  w.Key("efficiency").BeginObject();
  w.Field("has_launch_args", a.efficiency.has_launch_args);
  w.Key("devices").BeginArray();
  for (const auto& d : a.efficiency.devices) WriteEfficiencyDevice(w, a, d);
  w.EndArray();
  w.Key("kernels").BeginArray();
  for (const auto& k : a.efficiency.kernels) WriteEfficiencyKernel(w, a.rank, k);
  w.EndArray();
  w.EndObject();
  w.Key("memory").BeginArray();
  for (const auto& m : a.memory) WriteMemoryRow(w, a.rank, m);
  w.EndArray();
  w.Key("critical_path");
  if (HasCriticalPath(a)) WriteRankCriticalPath(w, a); else w.Null();
  w.Key("graphs");
  if (HasGraphs(a)) WriteRankGraphs(w, a); else w.Null();
  w.Key("device_turns");
  if (a.device_turns.measured()) WriteRankDeviceTurns(w, a); else w.Null();
  // The rank's own work in its steady steps, [start_ns, end_ns] pairs: what
  // the job's rank_turns compares (not in the report itself).
  w.Key("steady_work").BeginArray();
  for (const auto& iv : a.step_breakdown.steady_work.intervals()) {
    w.BeginArray();
    w.Int(iv.start);
    w.Int(iv.end);
    w.EndArray();
  }
  w.EndArray();
  // The work items of each step of step_breakdown.steps, in order: what
  // load-imbalance compares on host-only jobs (not in the report itself).
  w.Key("step_work_items").BeginArray();
  for (const auto& row : a.step_breakdown.steps) w.Int(row.work_items);
  w.EndArray();
  w.Key("shapes").BeginArray();
  for (const auto& row : s.shapes) {
    // The argument texts as the trace wrote them, as strings: the report
    // inserts them as JSON values (analysis::ShapeRowJson).
    auto text_or_null = [&](std::string_view key, const std::string& text) {
      w.Key(key);
      if (text.empty()) w.Null(); else w.String(text);
    };
    w.BeginObject();
    w.Field("op", row.op);
    text_or_null("input_dims", row.input_dims);
    text_or_null("input_types", row.input_types);
    text_or_null("input_strides", row.input_strides);
    text_or_null("input_concrete", row.input_concrete);
    w.Field("count", row.count).Field("total_ns", row.total_ns).Field("device_ns", row.device_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("collectives").BeginArray();
  for (const auto& [name, calls] : s.collectives.by_name) {
    w.BeginObject();
    w.Field("name", name);
    w.Key("calls").BeginArray();
    for (const auto& c : calls) w.BeginArray().Int(c.start_ns).Int(c.start_ns + c.dur_ns).EndArray();
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("findings").BeginArray();
  for (const auto& f : s.findings) WriteFinding(w, f);
  w.EndArray();
  w.EndObject();
  std::string out = w.Take();
  out.push_back('\n');
  return out;
}

namespace {

void ReadInput(ObjectReader o, InputInfo& in) {
  in.path = o.String("path");
  in.format = o.String("format");
  in.bytes = o.Uint("bytes");
  in.json_bytes = o.Uint("json_bytes");
  in.events = o.Uint("events");
  for (dom::element e : o.Array("ranks")) {
    const auto v = ElementInt(e);
    if (!v) o.Fail("ranks", "expected integers");
    in.ranks.push_back(static_cast<int>(v.value_or(0)));
  }
}

void ReadMeta(ObjectReader o, Meta& m) {
  for (ObjectReader p : o.Objects("device_properties")) {
    trace::DeviceProperties d;
    d.id = p.Int("id");
    d.name = p.String("name");
    d.total_memory_bytes = p.Int("total_memory_bytes");
    d.compute_major = static_cast<int>(p.Int("compute_major"));
    d.compute_minor = static_cast<int>(p.Int("compute_minor"));
    d.num_sms = static_cast<int>(p.Int("num_sms"));
    m.device_properties.push_back(std::move(d));
  }
  m.world_size = static_cast<int>(o.Int("world_size"));
  m.backend = o.String("backend");
  m.base_time_ns = o.IntOrNull("base_time_ns", trace::kNone);
}

void ReadCounters(ObjectReader& root, trace::Counters& counters) {
  for (ObjectReader c : root.Objects("counters")) {
    const std::string name = c.String("name");
    bool known = false;
    for (size_t k = 0; k < trace::kCounterCount && c.ok(); ++k) {
      const auto counter = static_cast<trace::Counter>(k);
      if (trace::GetCounterInfo(counter).name != name) continue;
      counters.Add(counter, c.Uint("count"));
      known = true;
    }
    if (!known) c.Fail("name", "unknown counter '" + name + "'");
  }
}

void ReadSteps(ObjectReader o, analysis::StepStats& s) {
  s.duration.count = o.Int("count");
  s.steady_begin = static_cast<size_t>(o.Int("steady_begin"));
  s.duration.median = o.Double("median_ns");
  s.duration.p10 = o.Double("p10_ns");
  s.duration.p90 = o.Double("p90_ns");
  s.steady_duration.median = o.Double("steady_median_ns");
  s.steady_duration.p10 = o.Double("steady_p10_ns");
  s.steady_duration.p90 = o.Double("steady_p90_ns");
  for (ObjectReader w : o.Objects("windows")) {
    analysis::StepRow row;
    row.window.number = w.Int("number");
    row.window.start_ns = w.Int("start_ns");
    row.window.end_ns = w.Int("end_ns");
    row.device_busy_ns = w.Int("device_busy_ns");
    s.steps.push_back(row);
  }
  if (s.steady_begin > s.steps.size()) o.Fail("steady_begin", "past the last window");
}

void ReadIdle(ObjectReader& o, analysis::IdleBreakdown& b) {
  b.host_wait_ns = o.Int("host_wait_ns");
  b.kernel_wait_ns = o.Int("kernel_wait_ns");
  b.other_ns = o.Int("other_ns");
}

analysis::DeviceBreakdown ReadDevice(ObjectReader o) {
  analysis::DeviceBreakdown d;
  d.device = static_cast<int32_t>(o.Int("device"));
  d.name = o.String("name");
  d.start_ns = o.Int("start_ns");
  d.end_ns = o.Int("end_ns");
  d.span_ns = o.Int("span_ns");
  d.busy_ns = o.Int("busy_ns");
  d.idle_ns = o.Int("idle_ns");
  ObjectReader idle = o.Object("idle_breakdown");
  ReadIdle(idle, d.idle_breakdown);
  ObjectReader device_idle = o.Object("device_idle");
  ReadIdle(device_idle, d.device_idle);
  d.compute_ns = o.Int("compute_ns");
  d.comm_ns = o.Int("comm_ns");
  d.memcpy_ns = o.Int("memcpy_ns");
  d.memset_ns = o.Int("memset_ns");
  d.kernel_count = o.Int("kernel_count");
  d.comm_kernel_count = o.Int("comm_kernel_count");
  d.memcpy_count = o.Int("memcpy_count");
  d.memset_count = o.Int("memset_count");
  d.short_kernel_count = o.Int("short_kernel_count");
  for (ObjectReader s : o.Objects("streams")) {
    analysis::StreamIdle st;
    st.stream = s.Int("stream");
    st.op_count = s.Int("op_count");
    st.start_ns = s.Int("start_ns");
    st.end_ns = s.Int("end_ns");
    st.busy_ns = s.Int("busy_ns");
    st.gap_count = s.Int("gap_count");
    ReadIdle(s, st.idle);
    d.streams.push_back(std::move(st));
  }
  return d;
}

void ReadLaunch(ObjectReader o, analysis::LaunchStats& l) {
  l.kernel_count = o.Int("kernel_count");
  l.launched_count = o.Int("launched_count");
  l.short_kernel_count = o.Int("short_kernel_count");
  l.launch_delay.median = o.Double("launch_delay_median_ns");
  l.launch_delay.p90 = o.Double("launch_delay_p90_ns");
  l.queue_delay.median = o.Double("queue_delay_median_ns");
  l.queue_delay.p90 = o.Double("queue_delay_p90_ns");
  l.launch_call.median = o.Double("launch_call_median_ns");
}

template <typename Array>
void ReadCategories(ObjectReader& o, Array& out) {
  for (size_t k = 0; k < kStepCategoryCount; ++k) {
    const std::string key = std::string(StepCategoryName(k)) + "_ns";
    if constexpr (std::is_same_v<typename Array::value_type, double>) {
      out[k] = o.Double(key);
    } else {
      out[k] = o.Int(key);
    }
  }
}

void ReadStepBreakdown(ObjectReader o, analysis::StepBreakdown& sb) {
  sb.whole_trace = o.Bool("whole_trace");
  sb.steady_begin = static_cast<size_t>(o.Int("steady_begin"));
  ObjectReader mean = o.Object("steady_mean");
  ReadCategories(mean, sb.steady_mean_ns);
  sb.steady_mean_step_ns = mean.Double("step_ns");
  sb.plugin_steady_count = static_cast<size_t>(o.Int("plugin_steady_count"));
  ObjectReader plugin_mean = o.Object("plugin_steady_mean");
  ReadCategories(plugin_mean, sb.plugin_steady_mean_ns);
  sb.plugin_steady_mean_step_ns = plugin_mean.Double("step_ns");
  for (ObjectReader s : o.Objects("steps")) {
    analysis::StepBreakdownRow row;
    row.number = s.Int("number");
    row.start_ns = s.Int("start_ns");
    row.end_ns = s.Int("end_ns");
    ReadCategories(s, row.ns);
    if (auto p = s.ObjectOrNull("plugin")) {
      row.plugin_kept = true;
      row.plugin_start_ns = p->Int("start_ns");
      row.plugin_end_ns = p->Int("end_ns");
      ReadCategories(*p, row.plugin_ns);
    }
    sb.steps.push_back(row);
  }
  // worst_step names a step by its number; the report writes it back so.
  const int64_t worst = o.IntOrNull("worst_step", INT64_MIN);
  if (worst != INT64_MIN) {
    for (size_t i = 0; i < sb.steps.size() && sb.worst_step < 0; ++i) {
      if (sb.steps[i].number == worst) sb.worst_step = static_cast<int>(i);
    }
    if (sb.worst_step < 0) o.Fail("worst_step", "names no step of `steps`");
  }
  if (sb.steady_begin > sb.steps.size()) o.Fail("steady_begin", "past the last step");
}

void ReadFigures(ObjectReader& o, analysis::EfficiencyFigures& f) {
  f.window_ns = o.Int("window_ns");
  f.kernel_busy_ns = o.Int("kernel_busy_ns");
  f.gpu_utilization = o.Double("gpu_utilization");
  f.sm_efficiency = o.Double("sm_efficiency");
  f.achieved_occupancy_pct = o.Double("achieved_occupancy_pct");
  f.kernel_ns = o.Int("kernel_ns");
  f.tensor_core_ns = o.Int("tensor_core_ns");
  f.tensor_core_share = o.Double("tensor_core_share");
}

void ReadEfficiency(ObjectReader o, analysis::RankAnalysis& a) {
  analysis::KernelEfficiency& e = a.efficiency;
  e.has_launch_args = o.Bool("has_launch_args");
  for (ObjectReader d : o.Objects("devices")) {
    analysis::DeviceEfficiency de;
    de.device = static_cast<int32_t>(d.Int("device"));
    de.num_sms = static_cast<int>(d.IntOrNull("num_sms", 0));
    de.max_warps_per_sm = static_cast<int>(d.IntOrNull("max_warps_per_sm", 0));
    ObjectReader steady = d.Object("steady");
    ReadFigures(steady, de.steady);
    // Per step only the ratios, numbered like the rank's step windows.
    for (ObjectReader s : d.Objects("steps")) {
      analysis::EfficiencyFigures f;
      f.gpu_utilization = s.Double("gpu_utilization");
      f.sm_efficiency = s.Double("sm_efficiency");
      f.achieved_occupancy_pct = s.Double("achieved_occupancy_pct");
      f.tensor_core_share = s.Double("tensor_core_share");
      de.steps.push_back(f);
    }
    if (de.steps.size() > a.steps.steps.size()) d.Fail("steps", "more steps than steps.windows");
    e.devices.push_back(std::move(de));
  }
  for (ObjectReader k : o.Objects("kernels")) {
    analysis::KernelOccupancy ko;
    ko.device = static_cast<int32_t>(k.Int("device"));
    ko.name = k.String("name");
    ko.count = k.Int("count");
    ko.total_ns = k.Int("total_ns");
    ko.share_of_kernel_time = k.Double("share_of_kernel_time");
    ko.occupancy_pct = k.Double("occupancy_pct");
    ko.blocks_per_sm = k.Double("blocks_per_sm");
    ko.warps_per_sm = k.Double("warps_per_sm");
    ko.tensor_core = k.Bool("tensor_core");
    e.kernels.push_back(std::move(ko));
  }
}

analysis::MemoryTimeline ReadMemory(ObjectReader o) {
  analysis::MemoryTimeline m;
  m.device = o.String("device");
  m.device_type = o.Int("device_type");
  m.device_id = o.Int("device_id");
  m.capacity_bytes = o.IntOrNull("capacity_bytes");
  m.event_count = o.Int("event_count");
  m.alloc_count = o.Int("alloc_count");
  m.free_count = o.Int("free_count");
  m.first_ts_ns = o.Int("first_ts_ns");
  m.last_ts_ns = o.Int("last_ts_ns");
  m.start_allocated_bytes = o.IntOrNull("start_allocated_bytes");
  m.peak_allocated_bytes = o.Int("peak_allocated_bytes");
  m.peak_ts_ns = o.Int("peak_ts_ns");
  m.peak_op = o.StringOrNull("peak_op");
  m.reserved_at_peak_bytes = o.IntOrNull("reserved_at_peak_bytes");
  m.peak_reserved_bytes = o.IntOrNull("peak_reserved_bytes");
  m.end_allocated_bytes = o.Int("end_allocated_bytes");
  m.end_reserved_bytes = o.IntOrNull("end_reserved_bytes");
  ObjectReader life = o.Object("lifetimes");
  m.live_at_start_bytes = life.IntOrNull("live_at_start_bytes");
  m.within_step_bytes = life.Int("within_step_bytes");
  m.within_step_count = life.Int("within_step_count");
  m.outlive_step_bytes = life.Int("outlive_step_bytes");
  m.outlive_step_count = life.Int("outlive_step_count");
  m.outside_steps_bytes = life.Int("outside_steps_bytes");
  m.outside_steps_count = life.Int("outside_steps_count");
  for (ObjectReader s : o.Objects("steps")) {
    analysis::MemoryStepRow row;
    row.number = s.Int("number");
    row.start_allocated_bytes = s.IntOrNull("start_allocated_bytes");
    row.peak_allocated_bytes = s.IntOrNull("peak_allocated_bytes");
    row.end_allocated_bytes = s.IntOrNull("end_allocated_bytes");
    row.peak_reserved_bytes = s.IntOrNull("peak_reserved_bytes");
    row.alloc_count = s.Int("alloc_count");
    row.alloc_bytes = s.Int("alloc_bytes");
    m.steps.push_back(row);
  }
  for (dom::element point : o.Array("timeline")) {
    dom::array pair;
    std::optional<int64_t> t, v;
    if (point.get_array().get(pair) == simdjson::SUCCESS && pair.size() == 2) {
      t = ElementInt(pair.at(0).value_unsafe());
      v = ElementInt(pair.at(1).value_unsafe());
    }
    if (!t || !v) {
      o.Fail("timeline", "expected [time_ns, bytes] pairs of integers");
      break;
    }
    m.timeline.emplace_back(*t, *v);
  }
  return m;
}

void ReadCriticalPath(ObjectReader o, analysis::CriticalPath& cp) {
  cp.status = o.String("status");
  cp.cuda_sync_events = o.Bool("cuda_sync_events");
  cp.window_start_ns = o.Int("window_start_ns");
  cp.window_end_ns = o.Int("window_end_ns");
  cp.window_ns = o.Int("window_ns");
  cp.steady_steps = o.Int("steady_steps");
  cp.node_count = o.Int("node_count");
  cp.edge_count = o.Int("edge_count");
  cp.length_ns = o.Int("length_ns");
  cp.host_ns = o.Int("host_ns");
  cp.device_ns = o.Int("device_ns");
  cp.launch_delay_ns = o.Int("launch_delay_ns");
  cp.kernel_gap_ns = o.Int("kernel_gap_ns");
  cp.sync_ns = o.Int("sync_ns");
  for (ObjectReader s : o.Objects("streams")) {
    analysis::CriticalPathStream st;
    st.device = static_cast<int32_t>(s.Int("device"));
    st.stream = s.Int("stream");
    st.compute_ns = s.Int("compute_ns");
    st.comm_ns = s.Int("comm_ns");
    st.memcpy_ns = s.Int("memcpy_ns");
    st.memset_ns = s.Int("memset_ns");
    st.kernel_gap_ns = s.Int("kernel_gap_ns");
    st.launch_delay_ns = s.Int("launch_delay_ns");
    cp.streams.push_back(st);
  }
  for (ObjectReader t : o.Objects("top")) {
    cp.top.push_back({t.String("kind"), t.String("name"), t.Int("ns"), t.Int("count")});
  }
  for (ObjectReader s : o.Objects("steps")) {
    analysis::CriticalPathStep st;
    st.number = s.Int("number");
    st.start_ns = s.Int("start_ns");
    st.end_ns = s.Int("end_ns");
    st.path_ns = s.Int("path_ns");
    st.host_ns = s.Int("host_ns");
    st.device_ns = s.Int("device_ns");
    st.launch_delay_ns = s.Int("launch_delay_ns");
    st.kernel_gap_ns = s.Int("kernel_gap_ns");
    st.sync_ns = s.Int("sync_ns");
    cp.steps.push_back(st);
  }
}

void ReadDeviceTurns(ObjectReader o, analysis::DeviceTurns& t) {
  for (simdjson::dom::element e : o.Array("devices")) {
    std::optional<int64_t> d = ElementInt(e);
    if (!d) return o.Fail("devices", "expected integers");
    t.devices.push_back(static_cast<int32_t>(*d));
  }
  for (simdjson::dom::element e : o.Array("busy_ns")) {
    std::optional<int64_t> b = ElementInt(e);
    if (!b) return o.Fail("busy_ns", "expected integers");
    t.busy_ns.push_back(*b);
  }
  if (t.busy_ns.size() != t.devices.size()) return o.Fail("busy_ns", "one per device expected");
  t.windows = o.Int("windows");
  t.window_ns = o.Int("window_ns");
  t.all_busy_ns = o.Int("all_busy_ns");
  t.some_busy_ns = o.Int("taking_turns_ns");
  t.all_idle_ns = o.Int("all_idle_ns");
}

void ReadGraphs(ObjectReader o, analysis::RankAnalysis& a) {
  analysis::GraphStats& g = a.graphs;
  g.launch_count = o.Int("launch_count");
  g.launches_with_activity = o.Int("launches_with_activity");
  g.launches_without_activity = o.Int("launches_without_activity");
  g.device_op_count = o.Int("device_op_count");
  g.kernel_count = o.Int("kernel_count");
  g.device_ns = o.Int("device_ns");
  analysis::CompiledRegions& c = a.compiled;
  c.triton_kernel_count = o.Int("triton_kernel_count");
  c.triton_kernels_outside = o.Int("triton_kernels_outside_regions");
  for (ObjectReader r : o.Objects("compiled_regions")) {
    c.regions.push_back({r.String("name"), r.Int("instances"), r.Int("kernel_count"),
                         r.Int("triton_kernel_count"), r.Int("kernel_ns")});
  }
}

std::optional<findings::Verdict> VerdictByName(std::string_view name) {
  for (auto v : {findings::Verdict::kAvoidable, findings::Verdict::kBounded,
                 findings::Verdict::kInsufficientEvidence}) {
    if (name == findings::VerdictName(v)) return v;
  }
  return std::nullopt;
}

findings::Finding ReadFinding(ObjectReader o) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  findings::Finding f;
  f.code = o.String("code");
  const std::string verdict = o.String("verdict");
  if (auto v = VerdictByName(verdict)) {
    f.verdict = *v;
  } else {
    o.Fail("verdict", "unknown verdict '" + verdict + "'");
  }
  f.title = o.String("title");
  f.source = o.String("source");
  ObjectReader evidence = o.Object("evidence");
  // Typed as the JSON is: an integer, a number (null: a number that was not
  // finite), a string.
  for (auto& [key, value] : evidence.Members()) {
    int64_t i;
    double d;
    std::string_view text;
    if (value.get_int64().get(i) == simdjson::SUCCESS) {
      f.evidence.emplace_back(key, i);
    } else if (value.is_null()) {
      f.evidence.emplace_back(key, kNaN);
    } else if (value.get_double().get(d) == simdjson::SUCCESS) {
      f.evidence.emplace_back(key, d);
    } else if (value.get_string().get(text) == simdjson::SUCCESS) {
      f.evidence.emplace_back(key, std::string(text));
    } else {
      evidence.Fail(key, "expected an integer, a number, null or a string");
    }
  }
  for (ObjectReader w : o.Objects("where")) {
    // Every key is optional: the report writes those that are set.
    findings::Location loc;
    if (w.Has("file")) loc.file = w.String("file");
    if (w.Has("line")) loc.line = static_cast<int>(w.Int("line"));
    if (w.Has("def_line")) loc.def_line = static_cast<int>(w.Int("def_line"));
    if (w.Has("inside")) loc.inside = w.String("inside");
    if (w.Has("function")) loc.function = w.String("function");
    if (w.Has("op")) loc.op = w.String("op");
    if (w.Has("kernel")) loc.kernel = w.String("kernel");
    if (w.Has("stream")) loc.stream = w.Int("stream");
    if (w.Has("rank")) loc.rank = static_cast<int>(w.Int("rank"));
    f.where.push_back(std::move(loc));
  }
  ObjectReader saving = o.Object("saving");
  f.saving.per_step_ns = saving.IntOrNull("per_step_ns");
  const double share = saving.Double("share_of_step");
  f.saving.share_of_step = std::isnan(share) ? -1 : share;
  f.saving.total_ns = saving.IntOrNull("total_ns");
  f.saving.upper_bound = saving.Bool("upper_bound");
  f.action = o.String("action");
  if (o.Has("overlaps")) {
    for (dom::element e : o.Array("overlaps")) {
      std::string_view code;
      if (e.get_string().get(code) != simdjson::SUCCESS) o.Fail("overlaps", "expected codes");
      f.overlaps.emplace_back(code);
    }
  }
  f.rank = static_cast<int>(o.IntOrNull("rank"));
  return f;
}

}  // namespace

StatusOr<RankSummary> ParseRankSummary(std::string_view json, const std::string& source) {
  dom::parser parser;
  dom::element root;
  if (auto error = parser.parse(json.data(), json.size()).get(root)) {
    return InvalidArgument(source + ": not a JSON document (" + simdjson::error_message(error) +
                           ")");
  }
  Status status;
  ObjectReader o(root, "$", &status);
  if (o.ok() && o.String("schema") != kRankSummarySchema) {
    return InvalidArgument(source + ": not a " + std::string(kRankSummarySchema) +
                           " document (its \"schema\" is not that)");
  }
  RankSummary s;
  analysis::RankAnalysis& a = s.analysis;
  a.rank = static_cast<int>(o.Int("rank"));
  s.input_index = static_cast<size_t>(o.Uint("input_index"));
  ReadInput(o.Object("input"), s.input);
  a.path = s.input.path;
  ReadMeta(o.Object("meta"), s.meta);
  ReadCounters(o, s.counters);
  ReadSteps(o.Object("steps"), a.steps);
  for (ObjectReader d : o.Objects("devices")) a.devices.push_back(ReadDevice(d));
  ReadLaunch(o.Object("launch"), a.launch);
  for (ObjectReader k : o.Objects("kernels")) {
    analysis::KernelRow row;
    row.name = k.String("name");
    row.count = k.Int("count");
    row.total_ns = k.Int("total_ns");
    // Summaries written before busy_ns: the sum of durations, which is at
    // least the union (the share is capped at 1 when merged).
    row.busy_ns = k.Has("busy_ns") ? k.Int("busy_ns") : row.total_ns;
    a.kernels.push_back(std::move(row));
  }
  for (ObjectReader op : o.Objects("ops")) {
    a.ops.push_back({op.String("name"), op.Int("count"), op.Int("total_ns"), op.Int("self_ns")});
  }
  if (auto sb = o.ObjectOrNull("step_breakdown")) ReadStepBreakdown(*sb, a.step_breakdown);
  ReadEfficiency(o.Object("efficiency"), a);
  for (ObjectReader m : o.Objects("memory")) a.memory.push_back(ReadMemory(m));
  if (auto cp = o.ObjectOrNull("critical_path")) ReadCriticalPath(*cp, a.critical_path);
  if (auto g = o.ObjectOrNull("graphs")) ReadGraphs(*g, a);
  // (absent in summaries written before steady_work existed: no work known)
  if (o.Has("steady_work")) {
    std::vector<timeline::Interval> work;
    for (simdjson::dom::element e : o.Array("steady_work")) {
      simdjson::dom::array pair;
      std::optional<int64_t> lo, hi;
      if (e.get_array().get(pair) == simdjson::SUCCESS && pair.size() == 2) {
        lo = ElementInt(pair.at(0).value_unsafe());
        hi = ElementInt(pair.at(1).value_unsafe());
      }
      if (!lo || !hi || *hi < *lo) {
        o.Fail("steady_work", "expected [start_ns, end_ns] pairs");
        break;
      }
      work.push_back({*lo, *hi});
    }
    a.step_breakdown.steady_work = timeline::IntervalSet::FromUnsorted(std::move(work));
  }
  // (absent in summaries written before work items were counted: 0, unknown)
  if (o.Has("step_work_items")) {
    const auto items = o.Array("step_work_items");
    if (items.size() != a.step_breakdown.steps.size()) {
      o.Fail("step_work_items", "expected one count per step of step_breakdown");
    } else {
      for (size_t i = 0; i < items.size(); ++i) {
        const std::optional<int64_t> n = ElementInt(items[i]);
        if (!n || *n < 0) {
          o.Fail("step_work_items", "expected counts of 0 or more");
          break;
        }
        a.step_breakdown.steps[i].work_items = *n;
      }
    }
  }
  // (absent in summaries written before device_turns existed: no devices taking turns)
  if (o.Has("device_turns")) {
    if (auto t = o.ObjectOrNull("device_turns")) ReadDeviceTurns(*t, a.device_turns);
  }
  for (ObjectReader row : o.Objects("shapes")) {
    analysis::ShapeRow shape;
    shape.op = row.String("op");
    shape.input_dims = row.StringOrNull("input_dims");
    shape.input_types = row.StringOrNull("input_types");
    shape.input_strides = row.StringOrNull("input_strides");
    // (absent in summaries written before input_concrete existed)
    if (row.Has("input_concrete")) shape.input_concrete = row.StringOrNull("input_concrete");
    shape.count = row.Int("count");
    shape.total_ns = row.Int("total_ns");
    shape.device_ns = row.Int("device_ns");
    s.shapes.push_back(std::move(shape));
  }
  s.collectives.rank = a.rank;
  for (ObjectReader c : o.Objects("collectives")) {
    std::vector<analysis::CollectiveCall>& calls = s.collectives.by_name[c.String("name")];
    for (dom::element e : c.Array("calls")) {
      dom::array pair;
      std::optional<int64_t> start, end;
      if (e.get_array().get(pair) == simdjson::SUCCESS && pair.size() == 2) {
        start = ElementInt(pair.at(0).value_unsafe());
        end = ElementInt(pair.at(1).value_unsafe());
      }
      if (!start || !end || *end < *start) {
        c.Fail("calls", "expected [start_ns, end_ns] pairs of integers, end >= start");
        break;
      }
      calls.push_back({*start, *end - *start});
    }
  }
  for (ObjectReader f : o.Objects("findings")) s.findings.push_back(ReadFinding(f));
  if (!status.ok()) return Status(status.code(), source + ": " + status.message());
  return s;
}

}  // namespace fastenough::report
