// meta.agents[]: one Python process's agent record (agent/<pid>.json), as
// the agent writes it (python/fastenough/agent/process_record.py), typed.
// fields/meta_agent_fields.h declares it; rundir/agent_records.cc reads the
// files through that declaration and the report writes them back from it.
// Every key is Recorded (report/meta_record.h): written back only when the
// file had it, in the file's order (older agents wrote fewer keys, and a
// dict's keys come in the order the program reached them). A value Python may
// write as None is a std::optional here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastenough/report/meta_record.h"

namespace fastenough::report {

// A (name, value) list the report writes as one JSON object, in the file's
// order (a mode's entries: "train", "eval"; a library's version by name).
template <class V>
using NamedValues = std::vector<std::pair<std::string, V>>;

// devices[]: what torch saw ("cuda:0", its name; "cpu" and the processor).
struct MetaAgentDevice {
  RecordedKeys recorded;
  std::string device;
  std::string name;
};

// compile: torch.compile's work in the process (agent/compile_info.py); null
// each when dynamo was never imported.
struct MetaAgentCompile {
  RecordedKeys recorded;
  std::optional<int64_t> compile_time_ns;
  std::optional<int64_t> compiles;
  std::optional<int64_t> recompiles;
};

// profile.superseded: the first window's steps, when a second replaced it.
struct MetaAgentWindowSuperseded {
  RecordedKeys recorded;
  std::optional<std::string> mode;
  std::optional<int64_t> first_step;
  std::optional<int64_t> last_step;
};

// profile: the profiler window (agent/profile_window.py, runtime.py).
struct MetaAgentWindow {
  RecordedKeys recorded;
  std::optional<std::string> trace;  // the trace file; null: none written
  std::optional<int64_t> first_step;
  std::optional<int64_t> last_step;
  std::optional<int64_t> start_wall_ns;
  std::optional<int64_t> end_wall_ns;
  bool with_stack = false;
  bool record_shapes = false;
  std::optional<std::string> mode;
  std::string skipped;
  std::string moved;
  std::optional<MetaAgentWindowSuperseded> superseded;
  std::optional<int64_t> peak_rss_rise_bytes;
  std::optional<std::string> stopped_early;
  std::optional<int64_t> memory_bound_bytes;
  std::optional<int64_t> rss_released_bytes;
  // The main thread's time on a core, and its wait for one (Linux schedstat
  // run_delay), over the window's steps; nullopt: unknown.
  std::optional<int64_t> thread_cpu_ns;
  std::optional<int64_t> run_delay_ns;
  std::string not_moved;
};

// dataloaders[]: the set-up of each DataLoader iterated (agent/sources/dataloader.py).
struct MetaAgentDataLoader {
  RecordedKeys recorded;
  std::optional<std::string> dataset;  // the dataset's class
  std::optional<int64_t> num_workers;
  bool pin_memory = false;
  std::optional<int64_t> batch_size;
  bool in_memory = false;  // a TensorDataset: items are indexes into resident tensors
};

// A user's line: {file, line, function}; {} when the agent found none.
struct MetaAgentSite {
  RecordedKeys recorded;
  std::string file;
  std::optional<int64_t> line;
  std::string function;
};

// step_split.<mode>: host time of the mode's timed steady steps, by part
// (agent/step_timer.py).
struct MetaAgentStepSplit {
  RecordedKeys recorded;
  int64_t steps = 0;
  int64_t step_ns = 0;
  int64_t forward_ns = 0;
  int64_t backward_ns = 0;
  int64_t optimizer_ns = 0;
  int64_t data_ns = 0;
  int64_t steps_with_forward = 0;
  int64_t steps_with_backward = 0;
  int64_t steps_with_optimizer = 0;
  int64_t steps_training_flag = 0;
  int64_t steps_grad_enabled = 0;
  int64_t data_ns_p10 = 0;
};

// cpu: the cores the process may run on and torch's threads.
struct MetaAgentCpu {
  RecordedKeys recorded;
  std::optional<int64_t> cores;
  std::optional<int64_t> torch_threads;
  std::optional<std::string> omp_num_threads;
};

// own_cost.last_interval: the guard's latest interval of steps.
struct MetaAgentOwnCostInterval {
  RecordedKeys recorded;
  int64_t steps = 0;
  int64_t own_ns_per_step = 0;
  double share = 0;  // of the steps' time; a Python float
  int64_t records = 0;
};

// own_cost: the agent's own cost per step and the guard on it (agent/own_cost.py).
struct MetaAgentOwnCost {
  RecordedKeys recorded;
  int64_t hook_ns = 0;
  int64_t hook_calls = 0;
  int64_t steps = 0;
  std::optional<int64_t> ns_per_step;
  int64_t steady_intervals = 0;
  std::optional<int64_t> base_ns_per_step;
  int64_t peak_ns_per_step = 0;
  std::optional<MetaAgentOwnCostInterval> last_interval;
  int64_t records = 0;
  std::optional<int64_t> base_records;
  int64_t peak_records = 0;
  // Why the guard switched the agent off; nullopt: it did not.
  std::optional<std::string> switched_off;
};

// records: what fastenough.record kept (agent/output_recorder.py).
struct MetaAgentRecords {
  RecordedKeys recorded;
  std::string dir;
  int64_t keys = 0;
  int64_t bytes = 0;
  NamedValues<int64_t> dtypes;  // tensors by dtype name
  int64_t shards = 0;
  std::optional<std::string> error;
};

// python_roots: the program's sys.path by kind (source_roots.py).
struct MetaAgentPythonRoots {
  RecordedKeys recorded;
  std::vector<std::string> user;
  std::vector<std::string> library;
  std::vector<std::string> tool;
};

struct MetaAgent {
  RecordedKeys recorded;
  int64_t pid = 0;
  std::optional<int64_t> rank;
  std::optional<int64_t> local_rank;
  std::optional<int64_t> world_size;
  std::string role;  // main | rank | worker | launcher
  std::string python;
  std::optional<std::string> torch;  // its version; nullopt: the agent never had torch
  std::optional<std::string> cuda;
  std::vector<MetaAgentDevice> devices;
  MetaAgentCompile compile;
  std::optional<MetaAgentWindow> profile;  // nullopt: no window was tried
  int64_t steps = 0;
  std::optional<std::string> step_source;
  NamedValues<std::optional<std::string>> step_sources;  // by mode
  int64_t mode_switches = 0;
  int64_t steps_deferred = 0;
  int64_t batch_dim = 0;
  std::vector<MetaAgentDataLoader> dataloaders;
  NamedValues<MetaAgentSite> dataloader_site;  // by mode
  NamedValues<MetaAgentStepSplit> step_split;  // by mode
  NamedValues<MetaAgentSite> model_call_site;  // by mode
  int64_t model_swaps = 0;
  int64_t tool_pause_ns = 0;
  int64_t tool_pauses = 0;
  int64_t profile_cost_ns = 0;
  MetaAgentCpu cpu;
  int64_t boot_mono_ns = 0;
  int64_t boot_wall_ns = 0;
  std::optional<std::string> agent_error;  // nullopt: the agent ran to the end
  MetaAgentOwnCost own_cost;
  std::optional<std::string> torch_attach;  // import | before-agent | late
  bool torch_imported_unseen = false;
  bool checks = true;
  bool timing_only = false;
  std::optional<MetaAgentRecords> records;  // nullopt: fastenough.record unused
  std::optional<MetaAgentPythonRoots> python_roots;
  NamedValues<std::string> libraries;  // versions, by module name
  bool main_started = true;
};

}  // namespace fastenough::report
