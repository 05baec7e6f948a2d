#include "fastenough/rundir/run_files.h"

#include <simdjson.h>

#include <charconv>

#include "fastenough/util/file_bytes.h"

namespace fastenough::rundir {

namespace {

namespace dom = simdjson::dom;

std::optional<int64_t> GetInt(dom::object o, const char* key) {
  dom::element e;
  if (o[key].get(e) != simdjson::SUCCESS) return std::nullopt;
  int64_t i;
  if (e.get_int64().get(i) == simdjson::SUCCESS) return i;
  uint64_t u;
  if (e.get_uint64().get(u) == simdjson::SUCCESS) return static_cast<int64_t>(u);
  double d;
  if (e.get_double().get(d) == simdjson::SUCCESS) return static_cast<int64_t>(d);
  return std::nullopt;
}

std::string GetString(dom::object o, const char* key) {
  std::string_view s;
  if (o[key].get_string().get(s) == simdjson::SUCCESS) return std::string(s);
  return "";
}

bool GetBool(dom::object o, const char* key) {
  bool b = false;
  if (o[key].get_bool().get(b) == simdjson::SUCCESS) return b;
  return false;
}

// Calls fn(object, line_number) for every line that is a JSON object.
template <typename Fn>
void ForEachJsonLine(const std::string& path, const char* label, RunFiles* out, Fn fn) {
  std::optional<std::string> text = ReadFile(path, label, &out->problems);
  if (!text) return;
  dom::parser parser;
  size_t pos = 0;
  int line_no = 0;
  while (pos < text->size()) {
    size_t nl = text->find('\n', pos);
    if (nl == std::string::npos) nl = text->size();
    std::string_view line(text->data() + pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    dom::object obj;
    if (parser.parse(line.data(), line.size()).get_object().get(obj) != simdjson::SUCCESS) {
      out->problems.push_back(std::string(label) + ":" + std::to_string(line_no) +
                              ": not a JSON object (a line cut short by a crash?); skipped");
      continue;
    }
    fn(obj, line_no);
  }
}

std::vector<std::string_view> SplitCsv(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == ',') {
      out.push_back(line.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

bool ParseI(std::string_view s, std::optional<int64_t>* out) {
  if (s.empty()) return true;
  int64_t v;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return false;
  *out = v;
  return true;
}

bool ParseD(std::string_view s, std::optional<double>* out) {
  if (s.empty()) return true;
  std::string t(s);
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

}  // namespace

std::optional<std::string> ReadFile(const std::string& path, std::string_view label,
                                    std::vector<std::string>* problems) {
  std::string text;
  Status st = ReadRegularFile(path, kMaxRunFileBytes, &text);
  if (st.ok()) return text;
  if (problems != nullptr && st.code() != StatusCode::kNotFound) {
    problems->push_back(std::string(label.empty() ? std::string_view(path) : label) + ": " +
                        st.message() + "; skipped");
  }
  return std::nullopt;
}

void ReadPhases(const std::string& path, RunFiles* out) {
  ForEachJsonLine(path, "phases.jsonl", out, [&](dom::object o, int line_no) {
    PhaseEdge e;
    e.rank = static_cast<int>(GetInt(o, "rank").value_or(0));
    e.pid = GetInt(o, "pid").value_or(0);
    e.phase = GetString(o, "phase");
    e.mode = GetString(o, "mode");
    std::string edge = GetString(o, "edge");
    auto mono = GetInt(o, "mono_ns");
    auto wall = GetInt(o, "wall_ns");
    if (e.phase.empty() || (edge != "begin" && edge != "end") || !mono || !wall) {
      out->problems.push_back("phases.jsonl:" + std::to_string(line_no) +
                              ": needs phase, edge begin|end, mono_ns and wall_ns; skipped");
      return;
    }
    e.begin = edge == "begin";
    e.mono_ns = *mono;
    e.wall_ns = *wall;
    e.synced = GetBool(o, "synced");
    e.automatic = GetBool(o, "auto");
    dom::object mem;
    if (o["memory"].get_object().get(mem) == simdjson::SUCCESS) {
      e.device = GetString(mem, "device");
      e.allocated = GetInt(mem, "allocated_bytes");
      e.reserved = GetInt(mem, "reserved_bytes");
      e.alloc_peak = GetInt(mem, "alloc_peak_bytes");
      e.reserved_peak = GetInt(mem, "reserved_peak_bytes");
      e.rss = GetInt(mem, "rss_bytes");
    }
    out->edges.push_back(std::move(e));
  });
}

void ReadSteps(const std::string& path, RunFiles* out) {
  ForEachJsonLine(path, "steps.jsonl", out, [&](dom::object o, int line_no) {
    StepRecord s;
    auto sm = GetInt(o, "start_mono_ns"), em = GetInt(o, "end_mono_ns");
    if (!sm || !em) {
      out->problems.push_back("steps.jsonl:" + std::to_string(line_no) +
                              ": needs start_mono_ns and end_mono_ns; skipped");
      return;
    }
    s.rank = static_cast<int>(GetInt(o, "rank").value_or(0));
    s.pid = GetInt(o, "pid").value_or(0);
    s.index = GetInt(o, "index").value_or(0);
    s.start_mono_ns = *sm;
    s.end_mono_ns = *em;
    s.start_wall_ns = GetInt(o, "start_wall_ns").value_or(0);
    s.end_wall_ns = GetInt(o, "end_wall_ns").value_or(0);
    s.items = GetInt(o, "items");
    s.tokens = GetInt(o, "tokens");
    s.source = GetString(o, "source");
    s.phase = GetString(o, "phase");
    s.mode = GetString(o, "mode");
    out->steps.push_back(std::move(s));
  });
}

void ReadSamples(const std::string& path, RunFiles* out) {
  std::optional<std::string> text = ReadFile(path, "samples.csv", &out->problems);
  if (!text) return;
  size_t pos = 0;
  int line_no = 0;
  while (pos < text->size()) {
    size_t nl = text->find('\n', pos);
    bool complete = nl != std::string::npos;
    if (!complete) nl = text->size();
    std::string_view line(text->data() + pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line_no == 1 || line.empty()) continue;  // header
    // wall_ns,source,device,util_pct,mem_used_bytes,mem_total_bytes,power_w,sm_clock_mhz,cpu_pct,rss_bytes
    std::vector<std::string_view> f = SplitCsv(line);
    SampleRow r;
    std::optional<int64_t> wall, device;
    bool ok = complete && f.size() == 10 && ParseI(f[0], &wall) && wall && ParseI(f[2], &device) &&
              ParseD(f[3], &r.util_pct) && ParseI(f[4], &r.mem_used_bytes) &&
              ParseI(f[5], &r.mem_total_bytes) && ParseD(f[6], &r.power_w) &&
              ParseI(f[7], &r.sm_clock_mhz) && ParseD(f[8], &r.cpu_pct) &&
              ParseI(f[9], &r.rss_bytes);
    if (!ok) {
      out->problems.push_back("samples.csv:" + std::to_string(line_no) + ": malformed row; skipped");
      continue;
    }
    r.wall_ns = *wall;
    r.source = std::string(f[1]);
    r.device = device ? static_cast<int>(*device) : -1;
    out->samples.push_back(std::move(r));
  }
}

}  // namespace fastenough::rundir
