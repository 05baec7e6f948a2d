#include "fastenough/rundir/agent_records.h"

#include <algorithm>
#include <filesystem>

#include "fastenough/report/report_json.h"
#include "fastenough/rundir/run_files.h"

namespace fastenough::rundir {

namespace {

namespace fs = std::filesystem;

// {"train": {"file":..,"line":..,"function":..}, ...}: the sites with a file.
std::map<std::string, findings::Location> Sites(
    const report::NamedValues<report::MetaAgentSite>& sites) {
  std::map<std::string, findings::Location> out;
  for (const auto& [mode, site] : sites) {
    if (site.file.empty()) continue;
    findings::Location loc;
    loc.file = site.file;
    loc.line = static_cast<int>(site.line.value_or(0));
    loc.function = site.function;
    out[mode] = loc;
  }
  return out;
}

// What the run's analysis reads of a record.
AgentRecord FromRecord(report::MetaAgent record) {
  AgentRecord a;
  const report::MetaAgent& r = record;
  a.pid = r.pid;
  a.rank = r.rank;
  a.role = r.role;
  a.torch = r.torch;
  a.torch_attach = r.torch_attach.value_or("");
  a.torch_imported_unseen = r.torch_imported_unseen;
  a.agent_error = r.agent_error.value_or("");
  a.own_cost_off = r.own_cost.switched_off.has_value();
  a.timing_only = r.timing_only;
  a.steps = r.steps;
  a.steps_deferred = r.steps_deferred;
  a.checks = r.checks;
  if (r.profile) {
    const report::MetaAgentWindow& p = *r.profile;
    a.traced = !p.trace.value_or("").empty();
    a.profile_mode = p.mode.value_or("");
    a.profile_skipped = p.skipped;
    a.profile_peak_rss_rise = p.peak_rss_rise_bytes.value_or(0);
    a.profile_memory_bound = p.memory_bound_bytes.value_or(0);
    a.profile_stopped_early = p.stopped_early.value_or("");
    a.profile_moved = p.moved;
    a.profile_not_moved = p.not_moved;
    if (p.first_step && p.last_step && *p.last_step >= *p.first_step) {
      a.profile_steps = *p.last_step - *p.first_step + 1;
    }
    a.profile_thread_cpu_ns = p.thread_cpu_ns;
    a.profile_run_delay_ns = p.run_delay_ns;
  }
  if (r.python_roots) {
    a.python_roots.user = r.python_roots->user;
    a.python_roots.library = r.python_roots->library;
    a.python_roots.tool = r.python_roots->tool;
  }
  a.batch_dim = r.batch_dim;
  a.tool_pause_ns = r.tool_pause_ns;
  a.tool_pauses = r.tool_pauses;
  a.profile_cost_ns = r.profile_cost_ns;
  a.cores = r.cpu.cores;
  a.torch_threads = r.cpu.torch_threads;
  for (const report::MetaAgentDataLoader& l : r.dataloaders) {
    DataLoaderInfo d;
    d.dataset = l.dataset.value_or("");
    d.num_workers = l.num_workers.value_or(0);
    d.pin_memory = l.pin_memory;
    d.in_memory = l.in_memory;
    d.batch_size = l.batch_size;
    a.dataloaders.push_back(std::move(d));
  }
  for (const auto& [mode, m] : r.step_split) {
    StepSplit s;
    s.steps = m.steps;
    s.step_ns = m.step_ns;
    s.forward_ns = m.forward_ns;
    s.backward_ns = m.backward_ns;
    s.optimizer_ns = m.optimizer_ns;
    s.data_ns = m.data_ns;
    s.data_ns_p10 = m.recorded.Has("data_ns_p10") ? m.data_ns_p10 : -1;
    a.step_split[mode] = s;
  }
  a.call_site = Sites(r.model_call_site);
  a.dataloader_site = Sites(r.dataloader_site);
  a.record = std::move(record);
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
  for (const fs::path& p : files) {
    const std::string label = "agent/" + p.filename().string();
    std::optional<std::string> text = ReadFile(p.string(), label, problems);
    if (!text) continue;  // not a regular file, too large: said in `problems`
    StatusOr<report::MetaAgent> record = report::MetaAgentFromJson(*text);
    if (!record.ok()) {
      problems->push_back(label + ": " + record.status().message() + "; ignored");
      continue;
    }
    AgentRecord a = FromRecord(std::move(record).value());
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
