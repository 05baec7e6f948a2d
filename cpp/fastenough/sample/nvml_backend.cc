#include "fastenough/sample/nvml_backend.h"

#include <dlfcn.h>

#include <cstdlib>

namespace fastenough::sample {

namespace {
// The few NVML types used, declared here (from nvml.h, stable ABI) so that no
// CUDA header is needed at build time.
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr unsigned kNvmlClockSm = 1;
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
// nvmlProcessInfo_t as taken by the _v2 and _v3 process queries.
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // NVML_VALUE_NOT_AVAILABLE (ULLONG_MAX) when unknown
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
}  // namespace

struct NvmlBackend::Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*count)(unsigned*) = nullptr;
  nvmlReturn_t (*handle_by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*util)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;  // milliwatts
  nvmlReturn_t (*clock)(nvmlDevice_t, unsigned, unsigned*) = nullptr;
  nvmlReturn_t (*procs)(nvmlDevice_t, unsigned*, nvmlProcessInfo_t*) = nullptr;
};

std::string NvmlBackend::DefaultLibraryPath() {
  const char* env = std::getenv("FASTENOUGH_NVML_LIBRARY");
  return env != nullptr && env[0] != '\0' ? env : "libnvidia-ml.so.1";
}

template <typename F>
static void Bind(void* lib, F* fn, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (void* p = dlsym(lib, n)) {
      *fn = reinterpret_cast<F>(p);
      return;
    }
  }
}

StatusOr<std::unique_ptr<NvmlBackend>> NvmlBackend::Load(const std::string& library_path) {
  void* lib = dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = dlerror();
    return NotFound("NVML not available (" + library_path + "): " + (err ? err : "dlopen failed"));
  }
  std::unique_ptr<NvmlBackend> b(new NvmlBackend());
  b->lib_ = lib;
  b->api_ = std::make_unique<Api>();
  Api& a = *b->api_;
  Bind(lib, &a.init, {"nvmlInit_v2", "nvmlInit"});
  Bind(lib, &a.shutdown, {"nvmlShutdown"});
  Bind(lib, &a.count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  Bind(lib, &a.handle_by_index, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  Bind(lib, &a.name, {"nvmlDeviceGetName"});
  Bind(lib, &a.uuid, {"nvmlDeviceGetUUID"});
  Bind(lib, &a.memory, {"nvmlDeviceGetMemoryInfo"});
  Bind(lib, &a.util, {"nvmlDeviceGetUtilizationRates"});
  Bind(lib, &a.power, {"nvmlDeviceGetPowerUsage"});
  Bind(lib, &a.clock, {"nvmlDeviceGetClockInfo"});
  // The unversioned query takes a smaller struct; only the _v3/_v2 ones are used.
  Bind(lib, &a.procs,
       {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
  if (!a.init || !a.shutdown || !a.count || !a.handle_by_index) {
    dlclose(lib);
    b->lib_ = nullptr;
    return Unimplemented("NVML library " + library_path + " lacks nvmlInit/nvmlDeviceGetCount");
  }
  if (nvmlReturn_t rc = a.init(); rc != kNvmlSuccess) {
    dlclose(lib);
    b->lib_ = nullptr;
    return Internal("nvmlInit failed with NVML error " + std::to_string(rc));
  }
  unsigned n = 0;
  if (a.count(&n) != kNvmlSuccess) n = 0;
  for (unsigned i = 0; i < n; ++i) {
    nvmlDevice_t h = nullptr;
    if (a.handle_by_index(i, &h) != kNvmlSuccess) continue;
    DeviceInfo info;
    info.index = static_cast<int>(i);
    char buf[256] = {};
    if (a.name && a.name(h, buf, sizeof(buf)) == kNvmlSuccess) info.name = buf;
    char ubuf[256] = {};
    if (a.uuid && a.uuid(h, ubuf, sizeof(ubuf)) == kNvmlSuccess) info.uuid = ubuf;
    nvmlMemory_t mem{};
    if (a.memory && a.memory(h, &mem) == kNvmlSuccess) {
      info.mem_total_bytes = static_cast<int64_t>(mem.total);
    }
    b->handles_.push_back(h);
    b->devices_.push_back(std::move(info));
  }
  return b;
}

NvmlBackend::~NvmlBackend() {
  if (lib_ != nullptr) {
    if (api_ && api_->shutdown) api_->shutdown();
    dlclose(lib_);
  }
}

std::vector<DeviceReading> NvmlBackend::Read() {
  std::vector<DeviceReading> out;
  const Api& a = *api_;
  for (size_t i = 0; i < handles_.size(); ++i) {
    nvmlDevice_t h = handles_[i];
    DeviceReading r;
    r.index = devices_[i].index;
    // Each query may fail on its own (not supported on this board, or the
    // device fell off the bus): that field is then absent, never zero.
    nvmlUtilization_t u{};
    if (a.util && a.util(h, &u) == kNvmlSuccess) r.util_pct = u.gpu;
    nvmlMemory_t m{};
    if (a.memory && a.memory(h, &m) == kNvmlSuccess) {
      r.mem_used_bytes = static_cast<int64_t>(m.used);
      r.mem_total_bytes = static_cast<int64_t>(m.total);
    }
    unsigned mw = 0;
    if (a.power && a.power(h, &mw) == kNvmlSuccess) r.power_w = mw / 1000.0;
    unsigned mhz = 0;
    if (a.clock && a.clock(h, kNvmlClockSm, &mhz) == kNvmlSuccess) r.sm_clock_mhz = mhz;
    if (a.procs) {
      nvmlProcessInfo_t infos[64];
      unsigned count = 64;
      nvmlReturn_t rc = a.procs(h, &count, infos);
      // More than 64 processes on one device (INSUFFICIENT_SIZE) leaves the
      // array unfilled; the list is then left empty rather than guessed.
      if (rc == kNvmlSuccess) {
        if (count > 64) count = 64;
        for (unsigned k = 0; k < count; ++k) {
          DeviceProcess p;
          p.pid = static_cast<pid_t>(infos[k].pid);
          if (infos[k].usedGpuMemory != ~0ULL) {
            p.used_bytes = static_cast<int64_t>(infos[k].usedGpuMemory);
          }
          r.processes.push_back(p);
        }
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace fastenough::sample
