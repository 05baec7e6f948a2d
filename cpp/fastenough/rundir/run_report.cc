#include "fastenough/rundir/run_report.h"

#include <simdjson.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "fastenough/analysis/statistics.h"
#include "fastenough/report/analyze.h"
#include "fastenough/report/json_writer.h"
#include "fastenough/report/report_json.h"
#include "fastenough/rundir/run_files.h"
#include "fastenough/trace/load_trace.h"

namespace fastenough::rundir {

namespace {

namespace fs = std::filesystem;
namespace dom = simdjson::dom;

std::optional<int64_t> Int(dom::element e) {
  int64_t i;
  if (e.get_int64().get(i) == simdjson::SUCCESS) return i;
  double d;
  if (e.get_double().get(d) == simdjson::SUCCESS) return static_cast<int64_t>(d);
  return std::nullopt;
}

std::optional<int64_t> IntField(dom::object o, const char* key) {
  dom::element e;
  if (o[key].get(e) != simdjson::SUCCESS) return std::nullopt;
  return Int(e);
}

// meta.json as the supervisor writes it (the fields used here):
//   {"command":["python","x.py"],"start_wall_ns":..,"end_wall_ns":..,"exit_status":0,
//    "signal":null,"visible_devices":{"physical":[1,0]},
//    "devices":[{"source":"nvml","index":0,"name":..,"mem_total_bytes":..}],
//    "other_processes":[{"source":"nvml","device":0,"pid":77,"max_used_bytes":..}]}
struct MetaFacts {
  std::vector<std::string> command;
  std::optional<int64_t> start_wall_ns, end_wall_ns, exit_status, signal;
  std::vector<int> visible_physical;
  struct Other {
    std::string source;
    int device = -1;
    int64_t pid = 0;
    int64_t max_used_bytes = -1;
  };
  std::vector<Other> others;
  std::vector<std::pair<std::string, std::string>> raw;  // every key, minified
};

MetaFacts ReadMeta(const std::string& path, std::vector<std::string>* problems) {
  MetaFacts m;
  std::optional<std::string> text = ReadFile(path);
  if (!text) return m;
  dom::parser parser;
  dom::object o;
  if (parser.parse(*text).get_object().get(o) != simdjson::SUCCESS) {
    problems->push_back("meta.json: not a JSON object; ignored");
    return m;
  }
  for (auto [k, v] : o) m.raw.emplace_back(std::string(k), simdjson::minify(v));
  dom::array cmd;
  if (o["command"].get_array().get(cmd) == simdjson::SUCCESS) {
    for (dom::element e : cmd) {
      std::string_view s;
      if (e.get_string().get(s) == simdjson::SUCCESS) m.command.emplace_back(s);
    }
  }
  m.start_wall_ns = IntField(o, "start_wall_ns");
  m.end_wall_ns = IntField(o, "end_wall_ns");
  m.exit_status = IntField(o, "exit_status");
  m.signal = IntField(o, "signal");
  dom::array phys;
  if (o["visible_devices"]["physical"].get_array().get(phys) == simdjson::SUCCESS) {
    for (dom::element e : phys) m.visible_physical.push_back(static_cast<int>(Int(e).value_or(-1)));
  }
  dom::array others;
  if (o["other_processes"].get_array().get(others) == simdjson::SUCCESS) {
    for (dom::element e : others) {
      dom::object p;
      if (e.get_object().get(p) != simdjson::SUCCESS) continue;
      MetaFacts::Other x;
      std::string_view s;
      if (p["source"].get_string().get(s) == simdjson::SUCCESS) x.source = s;
      x.device = static_cast<int>(IntField(p, "device").value_or(-1));
      x.pid = IntField(p, "pid").value_or(0);
      x.max_used_bytes = IntField(p, "max_used_bytes").value_or(-1);
      m.others.push_back(x);
    }
  }
  return m;
}

// agent/<pid>.json files, minified, in pid order; agent errors become problems.
std::vector<std::string> ReadAgents(const std::string& dir, std::vector<std::string>* problems) {
  std::vector<std::string> out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir + "/agent", ec)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  dom::parser parser;
  for (const fs::path& p : files) {
    std::optional<std::string> text = ReadFile(p.string());
    dom::object o;
    if (!text || parser.parse(*text).get_object().get(o) != simdjson::SUCCESS) {
      problems->push_back("agent/" + p.filename().string() + ": not a JSON object; ignored");
      continue;
    }
    std::string_view err;
    if (o["agent_error"].get_string().get(err) == simdjson::SUCCESS && !err.empty()) {
      problems->push_back("agent/" + p.filename().string() + ": the agent switched itself off: " +
                          std::string(err));
    }
    out.push_back(simdjson::minify(o));
  }
  return out;
}

// The findings the agent's checks already decided (in the core, through the
// binding) and wrote to checks.json:
//   {"schema":"fastenough.checks/1","checks_error":null,"findings":[{"code":..,
//    "verdict":"avoidable","title":..,"source":"agent","evidence":{..},"where":[..],
//    "saving":{"per_step_ns":..,"share_of_step":..,"total_ns":..,"upper_bound":true},
//    "action":..,"rank":0}], ...}
void ReadCheckFindings(const std::string& path, const char* label,
                       std::vector<findings::Finding>* out, std::vector<std::string>* problems) {
  std::optional<std::string> text = ReadFile(path);
  if (!text) return;
  dom::parser parser;
  dom::object o;
  if (parser.parse(*text).get_object().get(o) != simdjson::SUCCESS) {
    problems->push_back(std::string(label) + ": not a JSON object; ignored");
    return;
  }
  std::string_view err;
  if (o["checks_error"].get_string().get(err) == simdjson::SUCCESS && !err.empty()) {
    problems->push_back(std::string(label) + ": the agent's checks stopped: " + std::string(err));
  }
  dom::array list;
  if (o["findings"].get_array().get(list) != simdjson::SUCCESS) return;
  for (dom::element e : list) {
    dom::object f;
    std::string_view code;
    if (e.get_object().get(f) != simdjson::SUCCESS ||
        f["code"].get_string().get(code) != simdjson::SUCCESS) {
      problems->push_back(std::string(label) + ": a finding without a code was skipped");
      continue;
    }
    findings::Finding x;
    x.code = std::string(code);
    x.source = "agent";
    std::string_view sv;
    if (f["verdict"].get_string().get(sv) == simdjson::SUCCESS) {
      if (sv == "avoidable") x.verdict = findings::Verdict::kAvoidable;
      else if (sv == "bounded") x.verdict = findings::Verdict::kBounded;
      else x.verdict = findings::Verdict::kInsufficientEvidence;
    }
    if (f["title"].get_string().get(sv) == simdjson::SUCCESS) x.title = std::string(sv);
    if (f["source"].get_string().get(sv) == simdjson::SUCCESS) x.source = std::string(sv);
    if (f["action"].get_string().get(sv) == simdjson::SUCCESS) x.action = std::string(sv);
    x.rank = static_cast<int>(IntField(f, "rank").value_or(-1));
    dom::object ev;
    if (f["evidence"].get_object().get(ev) == simdjson::SUCCESS) {
      for (auto [k, v] : ev) {
        int64_t i;
        double d;
        std::string_view str;
        if (v.is_int64() && v.get_int64().get(i) == simdjson::SUCCESS) {
          x.evidence.emplace_back(std::string(k), i);
        } else if (v.get_double().get(d) == simdjson::SUCCESS) {
          x.evidence.emplace_back(std::string(k), d);
        } else if (v.get_string().get(str) == simdjson::SUCCESS) {
          x.evidence.emplace_back(std::string(k), std::string(str));
        } else if (!v.is_null()) {
          x.evidence.emplace_back(std::string(k), simdjson::minify(v));
        }
      }
    }
    dom::array where;
    if (f["where"].get_array().get(where) == simdjson::SUCCESS) {
      for (dom::element w : where) {
        dom::object wo;
        if (w.get_object().get(wo) != simdjson::SUCCESS) continue;
        findings::Location loc;
        if (wo["file"].get_string().get(sv) == simdjson::SUCCESS) loc.file = std::string(sv);
        loc.line = static_cast<int>(IntField(wo, "line").value_or(0));
        if (wo["function"].get_string().get(sv) == simdjson::SUCCESS) loc.function = std::string(sv);
        if (wo["op"].get_string().get(sv) == simdjson::SUCCESS) loc.op = std::string(sv);
        if (wo["kernel"].get_string().get(sv) == simdjson::SUCCESS) loc.kernel = std::string(sv);
        loc.stream = IntField(wo, "stream").value_or(-1);
        loc.rank = static_cast<int>(IntField(wo, "rank").value_or(-1));
        x.where.push_back(std::move(loc));
      }
    }
    dom::object saving;
    if (f["saving"].get_object().get(saving) == simdjson::SUCCESS) {
      x.saving.per_step_ns = IntField(saving, "per_step_ns").value_or(-1);
      x.saving.total_ns = IntField(saving, "total_ns").value_or(-1);
      double share;
      if (saving["share_of_step"].get_double().get(share) == simdjson::SUCCESS) {
        x.saving.share_of_step = share;
      }
      bool ub;
      if (saving["upper_bound"].get_bool().get(ub) == simdjson::SUCCESS) x.saving.upper_bound = ub;
    }
    out->push_back(std::move(x));
  }
}

std::vector<std::string> TraceFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir + "/trace", ec)) {
    std::string name = e.path().filename().string();
    auto ends = [&](const std::string& suf) {
      return name.size() >= suf.size() && name.compare(name.size() - suf.size(), suf.size(), suf) == 0;
    };
    if (e.is_regular_file() && (ends(".json") || ends(".json.gz"))) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string HumanBytes(int64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f GiB", static_cast<double>(b) / (1024.0 * 1024 * 1024));
  return buf;
}

void AddSamplerFindings(const MetaFacts& meta, const std::vector<PhaseRow>& phases,
                        const RunReportOptions& options, std::vector<findings::Finding>* out) {
  // device-shared: one finding per device that had processes of others.
  std::map<std::pair<std::string, int>, std::vector<const MetaFacts::Other*>> by_device;
  for (const auto& o : meta.others) by_device[{o.source, o.device}].push_back(&o);
  for (const auto& [key, procs] : by_device) {
    findings::Finding f;
    f.code = "device-shared";
    f.verdict = findings::Verdict::kInsufficientEvidence;
    f.source = "sampler";
    f.title = "Device " + std::to_string(key.second) + " (" + key.first + ") was shared with " +
              std::to_string(procs.size()) + " other process(es) during the run";
    f.evidence.emplace_back("device", static_cast<int64_t>(key.second));
    f.evidence.emplace_back("other_process_count", static_cast<int64_t>(procs.size()));
    int64_t mem = 0;
    std::string pids;
    for (const auto* p : procs) {
      if (p->max_used_bytes > 0) mem += p->max_used_bytes;
      if (!pids.empty()) pids += ",";
      pids += std::to_string(p->pid);
    }
    f.evidence.emplace_back("other_pids", pids);
    if (mem > 0) f.evidence.emplace_back("other_memory_bytes", mem);
    f.action =
        "Other jobs on the same device take compute and memory, so these timings may be slow "
        "and noisy; rerun on an idle device (or set CUDA_VISIBLE_DEVICES to a free one) before "
        "trusting small differences.";
    out->push_back(std::move(f));
  }

  // Memory near the limit / far below it, from the steady phase (or, without
  // one, the whole run) of each rank.
  std::map<int, const PhaseRow*> chosen;
  for (const PhaseRow& p : phases) {
    if (!p.mem_used_max || !p.mem_total || *p.mem_total <= 0) continue;
    auto it = chosen.find(p.rank);
    if (it == chosen.end() || (p.name == "steady" && it->second->name != "steady") ||
        (p.name == it->second->name && *p.mem_used_max > *it->second->mem_used_max)) {
      chosen[p.rank] = &p;
    }
  }
  for (const auto& [rank, p] : chosen) {
    double share = static_cast<double>(*p->mem_used_max) / static_cast<double>(*p->mem_total);
    findings::Finding f;
    f.source = "sampler";
    f.rank = rank;
    f.evidence.emplace_back("phase", p->name);
    f.evidence.emplace_back("mem_used_max_bytes", *p->mem_used_max);
    f.evidence.emplace_back("mem_total_bytes", *p->mem_total);
    f.evidence.emplace_back("used_share", share);
    if (share >= options.near_limit_share) {
      f.code = "memory-near-limit";
      f.verdict = findings::Verdict::kBounded;
      f.title = "Device memory " + HumanBytes(*p->mem_used_max) + " of " +
                HumanBytes(*p->mem_total) + " used in phase '" + p->name + "'";
      f.action =
          "Memory is nearly full: a larger batch or model will not fit, and allocator retries "
          "can slow steps; check the allocator's reserved peak before raising the batch.";
    } else if (share < options.headroom_share && p->name == "steady") {
      f.code = "memory-headroom";
      f.verdict = findings::Verdict::kInsufficientEvidence;
      f.title = "Only " + HumanBytes(*p->mem_used_max) + " of " + HumanBytes(*p->mem_total) +
                " device memory used in the steady loop";
      f.action =
          "A larger batch may raise throughput: sweep the batch size and keep the knee of "
          "items/s (device memory as seen by the driver, all processes included).";
    } else {
      continue;
    }
    out->push_back(std::move(f));
  }
}

std::string DetailsJson(const RunReport& rr) {
  report::JsonWriter w(1);
  w.BeginObject();
  w.Key("phases").BeginArray();
  for (const PhaseRow& p : rr.phases) {
    w.BeginObject();
    w.Field("name", p.name).Field("rank", p.rank).Field("pid", p.pid);
    w.Field("auto", p.automatic).Field("complete", p.complete);
    w.Key("busy_source");
    if (p.busy_source.empty()) w.Null(); else w.String(p.busy_source);
    w.Field("cpu_mean_pct", p.cpu_mean_pct.value_or(report::kAbsent));
    w.FieldOrNull("rss_max", p.rss_max.value_or(-1));
    w.FieldOrNull("mem_total", p.mem_total.value_or(-1));
    w.Field("device_samples", p.samples);
    w.EndObject();
  }
  w.EndArray();
  w.Key("steps_per_rank").BeginArray();
  for (const StepSummary& s : rr.steps) {
    w.BeginObject();
    w.Field("rank", s.rank).Field("steps", s.all_steps).Field("steady_count", s.count);
    if (s.count > 0) {
      w.Field("median_ns", s.median_ns).Field("p10_ns", s.p10_ns).Field("p90_ns", s.p90_ns);
      w.Field("span_ns", s.span_ns);
    }
    w.Field("steps_per_s", s.steps_per_s.value_or(report::kAbsent));
    w.Field("items_per_s", s.items_per_s.value_or(report::kAbsent));
    w.Field("tokens_per_s", s.tokens_per_s.value_or(report::kAbsent));
    w.Field("source", s.source);
    w.EndObject();
  }
  w.EndArray();
  w.Key("traces").BeginArray();
  for (const auto& t : rr.traces) w.String(t);
  w.EndArray();
  w.Key("problems").BeginArray();
  for (const auto& t : rr.problems) w.String(t);
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace

StatusOr<RunReport> AnalyzeRunDir(const std::string& dir, const RunReportOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return NotFound(dir + ": not a run directory");
  RunReport rr;
  std::vector<std::string>& problems = rr.problems;

  // Traces first: they make the bulk of the Report. One bad file is set
  // aside (and named) so that the other ranks are still analysed.
  rr.traces = TraceFiles(dir);
  std::vector<trace::EventStore> stores;
  stores.reserve(rr.traces.size());
  std::vector<std::string> good;
  for (const std::string& path : rr.traces) {
    StatusOr<trace::EventStore> s = trace::LoadTrace(path);
    if (!s.ok()) {
      problems.push_back(path + ": trace not analysed: " + s.status().message());
      continue;
    }
    if (s->path.empty()) s->path = path;
    stores.push_back(std::move(s).value());
    good.push_back(path);
  }
  std::vector<const trace::EventStore*> ptrs;
  for (const auto& s : stores) ptrs.push_back(&s);
  report::AnalyzeOptions ao;
  ao.threads = options.threads;
  rr.report = report::BuildReport(ptrs, ao);
  rr.traces = good;
  report::Report& r = rr.report;

  MetaFacts meta = ReadMeta(dir + "/meta.json", &problems);
  std::vector<std::string> agents = ReadAgents(dir, &problems);
  RunFiles files;
  ReadPhases(dir + "/phases.jsonl", &files);
  ReadSteps(dir + "/steps.jsonl", &files);
  ReadSamples(dir + "/samples.csv", &files);
  problems.insert(problems.end(), files.problems.begin(), files.problems.end());

  // Phase table.
  PhaseTableInputs in;
  in.visible_physical = meta.visible_physical;
  in.run_end_wall_ns = meta.end_wall_ns;
  for (const auto& ra : r.ranks) {
    int64_t busy = 0, span = 0;
    for (const auto& d : ra.devices) {
      busy += d.busy_ns;
      span += d.span_ns;
    }
    if (span > 0) in.trace_busy_share[ra.rank] = static_cast<double>(busy) / static_cast<double>(span);
  }
  rr.phases = BuildPhaseTable(files, in);
  r.phases.clear();
  for (const PhaseRow& p : rr.phases) {
    report::PhaseRow q;
    q.name = p.name;
    q.rank = p.rank;
    q.start_ns = p.start_wall_ns;
    q.end_ns = p.end_wall_ns;
    q.host_ns = p.host_ns;
    q.device_busy_share = p.device_busy_share.value_or(report::kAbsent);
    q.util_mean = p.util_mean.value_or(report::kAbsent);
    q.power_mean_w = p.power_mean_w.value_or(report::kAbsent);
    q.mem_used_max = p.mem_used_max.value_or(-1);
    q.alloc_peak = p.alloc_peak.value_or(-1);
    q.reserved_peak = p.reserved_peak.value_or(-1);
    r.phases.push_back(q);
  }

  // Steps: the agent's step records replace the trace's ProfilerStep view
  // (which only covers the profile window) whenever there are any.
  rr.steps = SummarizeSteps(files.steps);
  if (!files.steps.empty()) {
    std::vector<int64_t> all, steady;
    for (const StepRecord& s : files.steps) {
      all.push_back(s.end_mono_ns - s.start_mono_ns);
      if (s.phase == "steady") steady.push_back(s.end_mono_ns - s.start_mono_ns);
    }
    r.steps.duration = analysis::Summarize(all);
    r.steps.steady_duration = analysis::Summarize(steady);
    r.steps.steady_steps_per_s = report::kAbsent;
    r.steps.items_per_s = report::kAbsent;
    r.steps.tokens_per_s = report::kAbsent;
    // Steps/s of the job = steps/s of its first rank (ranks step together);
    // items and tokens add up over ranks (each rank has its own batch).
    double items = 0, tokens = 0;
    bool all_items = true, all_tokens = true, any = false;
    for (const StepSummary& s : rr.steps) {
      if (s.count == 0) continue;
      if (!any && s.steps_per_s) r.steps.steady_steps_per_s = *s.steps_per_s;
      any = true;
      if (s.items_per_s) items += *s.items_per_s; else all_items = false;
      if (s.tokens_per_s) tokens += *s.tokens_per_s; else all_tokens = false;
    }
    if (any && all_items) r.steps.items_per_s = items;
    if (any && all_tokens) r.steps.tokens_per_s = tokens;
  }

  // Run block and meta.
  report::RunInfo run;
  run.command = meta.command;
  run.exit_status = static_cast<int>(meta.exit_status.value_or(-1));
  run.signal = static_cast<int>(meta.signal.value_or(0));
  if (meta.start_wall_ns && meta.end_wall_ns) run.wall_ns = *meta.end_wall_ns - *meta.start_wall_ns;
  run.run_dir = fs::absolute(dir, ec).lexically_normal().string();
  const char* expected[] = {"meta.json", "phases.jsonl", "steps.jsonl", "samples.csv"};
  for (const char* name : expected) {
    if (!fs::exists(dir + "/" + name, ec)) run.missing.push_back(name);
  }
  if (agents.empty()) run.missing.push_back("agent/*.json");
  if (rr.traces.empty()) run.missing.push_back("trace/*.json.gz");
  // census.json and syncs.json are the agent's raw measurements; what they
  // imply is already decided into checks.json's findings.
  ReadCheckFindings(dir + "/checks.json", "checks.json", &r.findings, &problems);
  r.run = run;
  for (const auto& [k, v] : meta.raw) {
    if (k == "device_properties" || k == "world_size" || k == "backend" || k == "base_time_ns" ||
        k == "agents") {
      continue;  // the trace's own facts keep these names; agents are re-read below
    }
    r.meta.extra.emplace_back(k, v);
  }
  std::string agents_json = "[";
  for (size_t i = 0; i < agents.size(); ++i) agents_json += (i ? "," : "") + agents[i];
  agents_json += "]";
  r.meta.extra.emplace_back("agents", agents_json);

  AddSamplerFindings(meta, rr.phases, options, &r.findings);
  report::RankFindings(r.findings);
  return rr;
}

StatusOr<std::string> AnalyzeRunDirToJson(const std::string& dir, const RunReportOptions& options) {
  StatusOr<RunReport> rr = AnalyzeRunDir(dir, options);
  if (!rr.ok()) return rr.status();
  std::string json = report::ReportToJson(rr->report);
  // ReportToJson writes one object; the run details go in as its last key.
  size_t close = json.find_last_of('}');
  if (close == std::string::npos) return Internal("report JSON is not an object");
  json.insert(close, ",\n \"run_details\": " + DetailsJson(*rr) + "\n");
  return json;
}

}  // namespace fastenough::rundir
