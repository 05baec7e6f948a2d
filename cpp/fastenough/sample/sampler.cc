#include "fastenough/sample/sampler.h"

#include <time.h>

#include <cinttypes>
#include <cstdio>
#include <tuple>

#include "fastenough/sample/npu_smi.h"
#include "fastenough/sample/nvml_backend.h"

namespace fastenough::sample {

namespace {

int64_t ClockNs(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

template <typename T>
std::string Field(const std::optional<T>& v) {
  if (!v) return "";
  char buf[64];
  if constexpr (std::is_floating_point_v<T>) {
    std::snprintf(buf, sizeof(buf), "%.6g", *v);
  } else {
    std::snprintf(buf, sizeof(buf), "%" PRId64, static_cast<int64_t>(*v));
  }
  return buf;
}

}  // namespace

Sampler::Sampler(SamplerOptions options)
    : options_(std::move(options)), proc_(options_.proc_root) {}

Sampler::~Sampler() { (void)Stop(); }

Status Sampler::Start() {
  if (started_) return InvalidArgument("sampler already started");
  if (!(options_.hz > 0 && options_.hz <= 1000)) {
    return InvalidArgument("sampling rate must be in (0, 1000] Hz");
  }
  if (options_.nvml) {
    std::string path =
        options_.nvml_library.empty() ? NvmlBackend::DefaultLibraryPath() : options_.nvml_library;
    auto b = NvmlBackend::Load(path);
    if (b.ok()) {
      backends_.push_back({"nvml", true, path});
      devices_.push_back(std::move(b).value());
    } else {
      backends_.push_back({"nvml", false, b.status().message()});
    }
  } else {
    backends_.push_back({"nvml", false, "disabled"});
  }
  if (options_.npu_smi) {
    std::string cmd = options_.npu_smi_command.empty() ? NpuSmiBackend::DefaultCommand()
                                                       : options_.npu_smi_command;
    auto b = NpuSmiBackend::Load(cmd);
    if (b.ok()) {
      backends_.push_back({"npu-smi", true, cmd});
      devices_.push_back(std::move(b).value());
    } else {
      backends_.push_back({"npu-smi", false, b.status().message()});
    }
  } else {
    backends_.push_back({"npu-smi", false, "disabled"});
  }
  backends_.push_back({"proc", true, options_.proc_root});

  csv_ = std::fopen(options_.csv_path.c_str(), "we");
  if (csv_ == nullptr) return NotFound("cannot write " + options_.csv_path);
  std::fputs(
      "wall_ns,source,device,util_pct,mem_used_bytes,mem_total_bytes,power_w,sm_clock_mhz,"
      "cpu_pct,rss_bytes\n",
      csv_);
  std::fflush(csv_);
  started_ = true;
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

Status Sampler::Stop() {
  if (!started_) return Status::Ok();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  started_ = false;
  if (csv_ != nullptr) {
    int rc = std::fclose(csv_);
    csv_ = nullptr;
    if (rc != 0) return Internal("error closing " + options_.csv_path);
  }
  return Status::Ok();
}

void Sampler::Loop() {
  const auto period = std::chrono::nanoseconds(static_cast<int64_t>(1e9 / options_.hz));
  auto next = std::chrono::steady_clock::now();
  while (true) {
    Tick();
    next += period;
    std::unique_lock<std::mutex> lock(mu_);
    // A slow tick (npu-smi can take a second) skips the missed slots rather
    // than bursting to catch up.
    auto now = std::chrono::steady_clock::now();
    while (next < now) next += period;
    if (cv_.wait_until(lock, next, [this] { return stop_; })) break;
  }
  Tick();  // the last reading, at stop time
}

void Sampler::Tick() {
  const int64_t wall = ClockNs(CLOCK_REALTIME);
  std::string rows;
  pid_t root = root_pid_.load();
  std::vector<pid_t> tree_pids;
  if (root > 0) {
    int64_t mono = ClockNs(CLOCK_MONOTONIC);
    TreeReading now = proc_.Read(root);
    for (const auto& [pid, ticks] : now.ticks_by_pid) tree_pids.push_back(pid);
    std::optional<double> cpu;
    std::optional<int64_t> rss;
    std::vector<std::pair<pid_t, double>> by_pid;
    if (now.processes > 0) {
      rss = now.rss_bytes;
      if (have_last_tree_) {
        cpu = proc_.CpuPercent(last_tree_, now, mono - last_tree_mono_ns_);
        by_pid = proc_.CpuPercentByPid(last_tree_, now, mono - last_tree_mono_ns_);
      }
    }
    // The first tick has no interval to divide by: its cpu_pct stays empty.
    rows += std::to_string(wall) + ",proc,,,,,,," + Field(cpu) + "," + Field(rss) + "\n";
    // Who used it: DataLoader workers that mostly wait do not compete with
    // the training threads for the cores (cpu-oversubscribed), busy ones do.
    for (const auto& [pid, pct] : by_pid) {
      rows += std::to_string(wall) + ",proc-pid," + std::to_string(pid) + ",,,,,," +
              Field(std::optional<double>(pct)) + ",\n";
    }
    last_tree_ = std::move(now);
    last_tree_mono_ns_ = mono;
    have_last_tree_ = true;
  }
  for (const auto& backend : devices_) {
    for (const DeviceReading& r : backend->Read()) {
      rows += std::to_string(wall) + "," + backend->name() + "," + std::to_string(r.index) + "," +
              Field(r.util_pct) + "," + Field(r.mem_used_bytes) + "," +
              Field(r.mem_total_bytes) + "," + Field(r.power_w) + "," + Field(r.sm_clock_mhz) +
              ",,\n";
      std::lock_guard<std::mutex> lock(others_mu_);
      for (const DeviceProcess& p : r.processes) {
        bool ours = p.pid == root;
        for (pid_t t : tree_pids) ours = ours || t == p.pid;
        // Processes of the job itself are not "others"; a pid NVML reports
        // from another PID namespace (containers) cannot be matched and counts
        // as other, which is the safe side for a device-shared warning.
        if (ours) continue;
        auto key = std::make_tuple(std::string(backend->name()), r.index, p.pid);
        OtherProcess& o = others_[key];
        o.source = backend->name();
        o.device = r.index;
        o.pid = p.pid;
        ++o.ticks_seen;
        if (p.used_bytes && *p.used_bytes > o.max_used_bytes) o.max_used_bytes = *p.used_bytes;
      }
    }
  }
  if (csv_ != nullptr && !rows.empty()) {
    std::fputs(rows.c_str(), csv_);
    std::fflush(csv_);
  }
  ++ticks_;
}

std::vector<std::pair<std::string, DeviceInfo>> Sampler::Devices() const {
  std::vector<std::pair<std::string, DeviceInfo>> out;
  for (const auto& b : devices_) {
    for (const DeviceInfo& d : b->devices()) out.emplace_back(b->name(), d);
  }
  return out;
}

std::vector<OtherProcess> Sampler::OtherProcesses() const {
  std::lock_guard<std::mutex> lock(others_mu_);
  std::vector<OtherProcess> out;
  for (const auto& [k, v] : others_) out.push_back(v);
  return out;
}

}  // namespace fastenough::sample
