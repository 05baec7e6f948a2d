// meta.json's record, as the supervisor writes it
// (python/fastenough/supervisor/session.py), typed: the report's meta carries
// it (fields/meta_record_fields.h declares it; rundir/meta_facts.cc reads it
// through that declaration). Each key is written back only when the file had
// it: a run that never ended has no other_processes, a sampler that failed no
// devices, and older or hand-made files fewer keys.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fastenough::report {

// The keys a record read from a file had, in its order: what a key declared
// with Recorded() (fields/field.h) needs to be written back only when it was
// there.
struct RecordedKeys {
  std::vector<std::string> keys;
  bool Has(std::string_view key) const {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  }
};

// meta.git: the work tree's revision, when the command ran in one.
struct MetaGit {
  RecordedKeys recorded;
  std::string revision;
  std::optional<bool> dirty;  // nullopt: git status failed
};

// meta.agent_opts: what `fastenough run` asked of the agent (cli/run.py).
struct MetaAgentOpts {
  RecordedKeys recorded;
  bool trace = true;
  int64_t trace_steps = 0;
  int64_t warmup_steps = 0;
  bool probe = false;
  bool trace_gloo = true;
  bool trace_shapes = true;
  bool timing_only = false;
  double trace_memory_mib = 0;  // Python floats: written as Python spells them
  bool analyze_in_job = false;
  double in_job_timeout = 0;
};

struct MetaSamplerBackend {
  RecordedKeys recorded;
  std::string name;
  bool present = false;
  std::string detail;
};

// meta.sampler: the device and process sampler's settings and how it went.
struct MetaSampler {
  RecordedKeys recorded;
  double hz = 0;
  std::vector<MetaSamplerBackend> backends;
  int64_t ticks = 0;
  std::string error;  // the sampler did not start
};

// meta.devices[]: a device the sampler saw (bindings/sample_bindings.cc).
struct MetaDevice {
  RecordedKeys recorded;
  std::string source;
  int64_t index = 0;
  std::string name;
  std::optional<std::string> uuid;    // nullopt: null (unknown)
  std::optional<std::string> bus_id;  // nullopt: null
  std::optional<int64_t> mem_total_bytes;
};

// meta.visible_devices: the program's device index -> the physical one.
struct MetaVisibleDevices {
  RecordedKeys recorded;
  std::string variable;              // CUDA_VISIBLE_DEVICES, ...
  std::optional<std::string> value;  // nullopt: the variable was not set
  std::vector<int64_t> physical;
};

// meta.other_processes[]: a process outside the run seen on a device.
struct MetaOtherProcess {
  RecordedKeys recorded;
  std::string source;
  int64_t device = 0;
  int64_t pid = 0;
  std::optional<int64_t> max_used_bytes;
  int64_t ticks_seen = 0;
};

struct MetaRecord {
  RecordedKeys recorded;
  std::string schema;
  std::string fastenough_version;
  std::vector<std::string> command;
  std::string cwd;
  std::optional<MetaGit> git;  // nullopt: null (not a git work tree)
  std::string host;
  std::string supervisor_python;
  MetaAgentOpts agent_opts;
  int64_t start_wall_ns = 0;
  std::optional<int64_t> end_wall_ns;  // nullopt: null (the run never ended)
  std::optional<int64_t> exit_status;
  std::optional<int64_t> signal;
  bool interrupted = false;
  MetaSampler sampler;
  std::vector<MetaDevice> devices;
  std::optional<MetaVisibleDevices> visible_devices;  // nullopt: null (no devices)
  std::vector<MetaOtherProcess> other_processes;
};

}  // namespace fastenough::report
