#include "fastenough/rundir/agent_records.h"

#include <simdjson.h>

#include <algorithm>
#include <filesystem>

#include "fastenough/report/report_json.h"
#include "fastenough/rundir/json_fields.h"
#include "fastenough/rundir/run_files.h"

namespace fastenough::rundir {

namespace {

namespace fs = std::filesystem;
namespace dom = simdjson::dom;

std::string Str(dom::object o, const char* key) {
  std::string_view s;
  return o[key].get_string().get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}

bool Bool(dom::object o, const char* key, bool fallback) {
  bool b;
  return o[key].get_bool().get(b) == simdjson::SUCCESS ? b : fallback;
}

// {"train": {"file":..,"line":..,"function":..}, ...}: the sites with a file.
void ReadSites(dom::object o, const char* key, std::map<std::string, findings::Location>* out) {
  dom::object sites;
  if (o[key].get_object().get(sites) != simdjson::SUCCESS) return;
  for (auto [mode, v] : sites) {
    dom::object m;
    if (v.get_object().get(m) != simdjson::SUCCESS) continue;
    findings::Location loc;
    loc.file = Str(m, "file");
    loc.line = static_cast<int>(IntField(m, "line").value_or(0));
    loc.function = Str(m, "function");
    if (!loc.file.empty()) (*out)[std::string(mode)] = loc;
  }
}

AgentRecord Parse(dom::object o) {
  AgentRecord a;
  a.pid = IntField(o, "pid").value_or(0);
  a.rank = IntField(o, "rank");
  a.role = Str(o, "role");
  std::string_view torch;
  if (o["torch"].get_string().get(torch) == simdjson::SUCCESS) a.torch = std::string(torch);
  a.torch_attach = Str(o, "torch_attach");
  a.torch_imported_unseen = Bool(o, "torch_imported_unseen", false);
  a.agent_error = Str(o, "agent_error");
  a.steps = IntField(o, "steps").value_or(0);
  a.steps_deferred = IntField(o, "steps_deferred").value_or(0);
  a.checks = Bool(o, "checks", true);
  dom::object profile;
  if (o["profile"].get_object().get(profile) == simdjson::SUCCESS) {
    a.traced = !Str(profile, "trace").empty();
    a.profile_mode = Str(profile, "mode");
    a.profile_skipped = Str(profile, "skipped");
    a.profile_peak_rss_rise = IntField(profile, "peak_rss_rise_bytes").value_or(0);
    a.profile_memory_bound = IntField(profile, "memory_bound_bytes").value_or(0);
    a.profile_stopped_early = Str(profile, "stopped_early");
    a.profile_moved = Str(profile, "moved");
    a.profile_not_moved = Str(profile, "not_moved");
  }
  dom::object roots;
  if (o["python_roots"].get_object().get(roots) == simdjson::SUCCESS) {
    auto list = [&](const char* key, std::vector<std::string>* into) {
      dom::array arr;
      if (roots[key].get_array().get(arr) != simdjson::SUCCESS) return;
      for (dom::element e : arr) {
        std::string_view s;
        if (e.get_string().get(s) == simdjson::SUCCESS) into->emplace_back(s);
      }
    };
    list("user", &a.python_roots.user);
    list("library", &a.python_roots.library);
    list("tool", &a.python_roots.tool);
  }
  a.batch_dim = IntField(o, "batch_dim").value_or(0);
  a.tool_pause_ns = IntField(o, "tool_pause_ns").value_or(0);
  a.tool_pauses = IntField(o, "tool_pauses").value_or(0);
  a.profile_cost_ns = IntField(o, "profile_cost_ns").value_or(0);
  dom::object cpu;
  if (o["cpu"].get_object().get(cpu) == simdjson::SUCCESS) {
    a.cores = IntField(cpu, "cores");
    a.torch_threads = IntField(cpu, "torch_threads");
  }
  dom::array loaders;
  if (o["dataloaders"].get_array().get(loaders) == simdjson::SUCCESS) {
    for (dom::element e : loaders) {
      dom::object l;
      if (e.get_object().get(l) != simdjson::SUCCESS) continue;
      DataLoaderInfo d;
      d.dataset = Str(l, "dataset");
      d.num_workers = IntField(l, "num_workers").value_or(0);
      d.pin_memory = Bool(l, "pin_memory", false);
      d.in_memory = Bool(l, "in_memory", false);
      d.batch_size = IntField(l, "batch_size");
      a.dataloaders.push_back(std::move(d));
    }
  }
  dom::object split;
  if (o["step_split"].get_object().get(split) == simdjson::SUCCESS) {
    for (auto [mode, v] : split) {
      dom::object m;
      if (v.get_object().get(m) != simdjson::SUCCESS) continue;
      StepSplit s;
      s.steps = IntField(m, "steps").value_or(0);
      s.step_ns = IntField(m, "step_ns").value_or(0);
      s.forward_ns = IntField(m, "forward_ns").value_or(0);
      s.backward_ns = IntField(m, "backward_ns").value_or(0);
      s.optimizer_ns = IntField(m, "optimizer_ns").value_or(0);
      s.data_ns = IntField(m, "data_ns").value_or(0);
      s.data_ns_p10 = IntField(m, "data_ns_p10").value_or(-1);
      a.step_split[std::string(mode)] = s;
    }
  }
  ReadSites(o, "model_call_site", &a.call_site);
  ReadSites(o, "dataloader_site", &a.dataloader_site);
  a.json = simdjson::minify(o);
  return a;
}

}  // namespace

const AgentRecord* LoopAgentThatTimed(const std::vector<AgentRecord>& agents, int rank,
                                      const std::string& mode) {
  const AgentRecord* found = nullptr;
  int64_t timed = -1;
  for (const AgentRecord& a : agents) {
    if (!a.in_the_loop() || a.rank.value_or(0) != rank) continue;
    const auto it = a.step_split.find(mode);
    const int64_t steps = it == a.step_split.end() ? 0 : it->second.steps;
    if (steps > timed) {
      found = &a;
      timed = steps;
    }
  }
  return found;
}

std::vector<AgentRecord> ReadAgentRecords(const std::string& dir,
                                          std::vector<std::string>* problems) {
  std::vector<AgentRecord> out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir + "/agent", ec)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  dom::parser parser;
  for (const fs::path& p : files) {
    const std::string label = "agent/" + p.filename().string();
    std::optional<std::string> text = ReadFile(p.string(), label, problems);
    if (!text) continue;  // not a regular file, too large: said in `problems`
    dom::object o;
    if (parser.parse(*text).get_object().get(o) != simdjson::SUCCESS) {
      problems->push_back(label + ": not a JSON object; ignored");
      continue;
    }
    AgentRecord a = Parse(o);
    a.file = label;
    if (!a.agent_error.empty()) {
      problems->push_back(label + ": the agent switched itself off: " + a.agent_error);
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::optional<report::BatchSweep> ReadBatchSweep(const std::string& dir,
                                                 std::vector<std::string>* problems) {
  const std::string path = dir + "/sweep_batch.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  std::optional<std::string> text = ReadFile(path, "sweep_batch.json", problems);
  if (!text) return std::nullopt;
  StatusOr<report::BatchSweep> sweep = report::BatchSweepFromJson(*text);
  if (!sweep.ok()) {
    problems->push_back("sweep_batch.json: " + sweep.status().message() + "; ignored");
    return std::nullopt;
  }
  return std::move(sweep).value();
}

}  // namespace fastenough::rundir
