// agent/<pid>.json, one per Python process of the run, as the agent writes it
// (python/fastenough/agent/process_record.py), read through its declaration
// (report::MetaAgent, report/fields/meta_agent_fields.h): the report carries
// each record as the file had it (meta.agents), and AgentRecord holds what the
// run's analysis reads of it. Every key is optional: older agents wrote fewer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fastenough/analysis/frame_kinds.h"
#include "fastenough/findings/finding.h"
#include "fastenough/report/meta_agent.h"
#include "fastenough/report/run_blocks.h"

namespace fastenough::rundir {

struct DataLoaderInfo {
  std::string dataset;
  int64_t num_workers = 0;
  bool pin_memory = false;
  bool in_memory = false;  // a TensorDataset: its items are indexes into resident tensors
  std::optional<int64_t> batch_size;
};

// Host time a mode's sampled steady steps spent in each part of the step.
struct StepSplit {
  int64_t steps = 0;
  int64_t step_ns = 0;
  int64_t forward_ns = 0, backward_ns = 0, optimizer_ns = 0, data_ns = 0;
  // The data wait of nearly every timed step (their 10th percentile); -1: not
  // recorded (older agents).
  int64_t data_ns_p10 = -1;
};

struct AgentRecord {
  std::string file;  // "agent/10.json"
  int64_t pid = 0;
  std::optional<int64_t> rank;
  std::string role;  // main | rank | worker | launcher
  std::optional<std::string> torch;  // version; absent: the agent never had torch
  std::string torch_attach;          // import | before-agent | late | ""
  bool torch_imported_unseen = false;
  std::string agent_error;           // "" when none
  // The agent's own-cost guard switched it off (own_cost.switched_off): on
  // purpose, not an internal error.
  bool own_cost_off = false;
  bool timing_only = false;  // fastenough run --timing-only
  int64_t steps = 0;
  int64_t steps_deferred = 0;
  bool checks = true;
  bool traced = false;  // a profiler window was written
  std::string profile_mode;
  std::string profile_skipped;  // why the agent did not run its profiler window
  int64_t profile_peak_rss_rise = 0;  // bytes the window raised the peak RSS by
  int64_t profile_memory_bound = 0;   // what the agent allowed it (0: not recorded)
  std::string profile_stopped_early;  // why the window ended before its steps (memory)
  std::string profile_moved;  // why the window ran again on other steps
  std::string profile_not_moved;  // why it did not, when it should have (memory)
  int64_t profile_steps = 0;      // the window's steps (last - first + 1; 0: none)
  // The main thread's time on a core and its wait for one over the window's
  // steps; nullopt: unknown.
  std::optional<int64_t> profile_thread_cpu_ns;
  std::optional<int64_t> profile_run_delay_ns;
  int64_t batch_dim = 0;
  int64_t tool_pause_ns = 0, tool_pauses = 0, profile_cost_ns = 0;
  std::optional<int64_t> cores, torch_threads;
  std::vector<DataLoaderInfo> dataloaders;
  std::map<std::string, StepSplit> step_split;         // by mode
  std::map<std::string, findings::Location> call_site;  // of the main model's calls, by mode
  // The user's line iterating a DataLoader, by mode (its first fetch in it).
  std::map<std::string, findings::Location> dataloader_site;
  // The program's sys.path by kind ("python_roots": {"user": [..], "library":
  // [..], "tool": [..]}), to tell its frames in the trace apart.
  analysis::FrameRoots python_roots;
  report::MetaAgent record;  // the whole record, as the file had it (meta.agents)

  bool in_the_loop() const { return role == "main" || role == "rank"; }
};

// Every agent/*.json in its files' name order; unreadable ones, and ones
// with a key of another type than declared, are named in problems and left out.
std::vector<AgentRecord> ReadAgentRecords(const std::string& dir,
                                          std::vector<std::string>* problems);

// The rank's loop process (role main or rank), the one that timed the most
// steps of `mode` (step_split): a run can hold two "main" records of one rank
// (a launcher's short-lived Python beside the program's, as
// bench/real_programs.py runs them), and the first found need not be the one
// with the steps. nullptr when the rank has no loop record.
const AgentRecord* LoopAgentThatTimed(const std::vector<AgentRecord>& agents, int rank,
                                      const std::string& mode);

// sweep_batch.json, written by fastenough.sweep_batch under the agent
// (python/fastenough/measure/sweep.py):
//   {"points":[{"size":16,"status":"ok","items_per_s":1975.3,"peak_bytes":null,..},
//              {"size":64,"status":"out of memory (OutOfMemoryError)"}],
//    "knee":16,"best":32,"within":0.05,"device":"cuda:0","protocol_change":false,..}
// Read through its declaration (report::BatchSweep, report/fields/rank_fields.h)
// for the report's meta.batch_sweep; nullopt when absent, or when unreadable or
// not of that shape (then named in `problems`).
std::optional<report::BatchSweep> ReadBatchSweep(const std::string& dir,
                                                 std::vector<std::string>* problems);

}  // namespace fastenough::rundir
