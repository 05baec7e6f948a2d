// A stand-in for libnvidia-ml.so.1 for the sampler tests: the NVML entry
// points the sampler dlopens, with fixed answers.
//   device 0: "Fake GPU 0", 80 GiB total, 1 GiB used, 50 % util, 250 W, 1980 MHz,
//             processes: pid FAKE_NVML_PID (env; the test's own child) with 512 MiB
//             and pid 999999 with 256 MiB (another user's job)
//   device 1: "Fake GPU 1", utilisation and power NOT_SUPPORTED (must come out absent)
// FAKE_NVML_DEVICES=<n> changes the device count; FAKE_NVML_INIT_FAIL=1 makes
// nvmlInit fail (driver not loaded).
#include <cstdlib>
#include <cstring>

extern "C" {

typedef int nvmlReturn_t;
typedef void* nvmlDevice_t;
struct nvmlMemory_t { unsigned long long total, free, used; };
struct nvmlUtilization_t { unsigned int gpu, memory; };
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

static const nvmlReturn_t kSuccess = 0, kInvalid = 2, kNotSupported = 3, kUninit = 1;
static int g_init = 0;
static long g_devices[8];

static unsigned DeviceCount() {
  const char* n = std::getenv("FAKE_NVML_DEVICES");
  return n ? static_cast<unsigned>(std::atoi(n)) : 2u;
}
static int Index(nvmlDevice_t d) { return static_cast<int>(static_cast<long*>(d) - g_devices); }

nvmlReturn_t nvmlInit_v2() {
  const char* f = std::getenv("FAKE_NVML_INIT_FAIL");
  if (f && f[0] == '1') return 9;  // NVML_ERROR_DRIVER_NOT_LOADED
  g_init = 1;
  return kSuccess;
}
nvmlReturn_t nvmlShutdown() { g_init = 0; return kSuccess; }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* n) {
  if (!g_init) return kUninit;
  *n = DeviceCount();
  return kSuccess;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t* d) {
  if (i >= DeviceCount() || i >= 8) return kInvalid;
  *d = &g_devices[i];
  return kSuccess;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* buf, unsigned len) {
  char tmp[32];
  std::strcpy(tmp, "Fake GPU 0");
  tmp[9] = static_cast<char>('0' + Index(d));
  std::strncpy(buf, tmp, len);
  return kSuccess;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* buf, unsigned len) {
  char tmp[48];
  std::strcpy(tmp, "GPU-fake-0000");
  tmp[12] = static_cast<char>('0' + Index(d));
  std::strncpy(buf, tmp, len);
  return kSuccess;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  m->total = 80ULL << 30;
  m->used = static_cast<unsigned long long>(Index(d) + 1) << 30;
  m->free = m->total - m->used;
  return kSuccess;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) {
  if (Index(d) == 1) return kNotSupported;
  u->gpu = 50;
  u->memory = 20;
  return kSuccess;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned* mw) {
  if (Index(d) == 1) return kNotSupported;
  *mw = 250000;
  return kSuccess;
}
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t, unsigned type, unsigned* mhz) {
  if (type != 1) return kInvalid;
  *mhz = 1980;
  return kSuccess;
}
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned* count,
                                                     nvmlProcessInfo_t* infos) {
  if (Index(d) != 0) {
    *count = 0;
    return kSuccess;
  }
  const char* p = std::getenv("FAKE_NVML_PID");
  unsigned n = 0;
  nvmlProcessInfo_t all[2] = {};
  if (p) {
    all[n].pid = static_cast<unsigned>(std::atoi(p));
    all[n].usedGpuMemory = 512ULL << 20;
    ++n;
  }
  all[n].pid = 999999;
  all[n].usedGpuMemory = 256ULL << 20;
  ++n;
  if (*count < n) {
    *count = n;
    return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  }
  for (unsigned i = 0; i < n; ++i) infos[i] = all[i];
  *count = n;
  return kSuccess;
}

}  // extern "C"
