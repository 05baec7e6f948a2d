// The run sampler: a thread of its own that, at a low fixed rate (2 Hz by
// default), reads every device backend that is present and the CPU/RSS of
// the child's process tree, and appends rows to samples.csv:
//   wall_ns,source,device,util_pct,mem_used_bytes,mem_total_bytes,power_w,sm_clock_mhz,cpu_pct,rss_bytes
//   1733139000000000000,nvml,0,87,30064771072,85899345920,312.5,1980,,
//   1733139000000000000,proc,,,,,,,394.2,8123400192
// An empty field is absent (the backend could not say), never 0. Each tick is
// flushed, so a crash of the supervisor still leaves a readable file.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fastenough/sample/device_backend.h"
#include "fastenough/sample/proc_tree.h"
#include "fastenough/util/status.h"

namespace fastenough::sample {

struct SamplerOptions {
  std::string csv_path;
  double hz = 2.0;
  bool nvml = true;
  bool npu_smi = true;
  std::string nvml_library;  // empty: NvmlBackend::DefaultLibraryPath()
  std::string npu_smi_command;  // empty: NpuSmiBackend::DefaultCommand()
  std::string proc_root = "/proc";
};

// A process seen on a device that is not in the sampled process tree.
struct OtherProcess {
  std::string source;
  int device = -1;
  pid_t pid = 0;
  int64_t max_used_bytes = -1;  // -1: not known
  int ticks_seen = 0;
};

struct BackendStatus {
  std::string name;  // nvml | npu-smi | proc
  bool present = false;
  std::string detail;  // why absent, or the library/command used
};

class Sampler {
 public:
  explicit Sampler(SamplerOptions options);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Probes the backends, opens the CSV (writing its header) and starts the
  // thread. Before a root pid is set only device rows are written.
  Status Start();
  // The process tree to follow; may be set after Start (the child is spawned
  // after the sampler starts so that its startup is sampled too).
  void SetRootPid(pid_t pid) { root_pid_.store(pid); }
  // Takes one last reading, stops the thread and closes the file. Idempotent.
  Status Stop();

  const std::vector<BackendStatus>& backends() const { return backends_; }
  // (source, info) for every device of every present backend.
  std::vector<std::pair<std::string, DeviceInfo>> Devices() const;
  std::vector<OtherProcess> OtherProcesses() const;
  int64_t ticks() const { return ticks_.load(); }

 private:
  void Loop();
  void Tick();

  SamplerOptions options_;
  std::vector<std::unique_ptr<DeviceBackend>> devices_;
  std::vector<BackendStatus> backends_;
  ProcTree proc_;
  std::atomic<pid_t> root_pid_{0};
  std::atomic<int64_t> ticks_{0};

  std::FILE* csv_ = nullptr;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool started_ = false;

  // Tree state between ticks (thread only).
  TreeReading last_tree_;
  int64_t last_tree_mono_ns_ = 0;
  bool have_last_tree_ = false;

  mutable std::mutex others_mu_;
  std::map<std::tuple<std::string, int, pid_t>, OtherProcess> others_;
};

}  // namespace fastenough::sample
