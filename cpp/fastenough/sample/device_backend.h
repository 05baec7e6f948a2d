// A source of per-device readings (NVML, npu-smi). A backend that is not
// present is never created, so absent devices are reported as absent and
// never as zeros; a reading field that the backend could not get stays empty.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fastenough::sample {

struct DeviceInfo {
  int index = -1;  // physical index as the backend numbers it
  std::string name;
  std::string uuid;
  std::string bus_id;
  std::optional<int64_t> mem_total_bytes;
};

// A process that holds memory on a device.
struct DeviceProcess {
  pid_t pid = 0;
  std::optional<int64_t> used_bytes;
};

struct DeviceReading {
  int index = -1;
  std::optional<double> util_pct;
  std::optional<int64_t> mem_used_bytes;
  std::optional<int64_t> mem_total_bytes;
  std::optional<double> power_w;
  std::optional<int64_t> sm_clock_mhz;
  std::vector<DeviceProcess> processes;
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual const char* name() const = 0;  // "nvml" | "npu-smi": the samples.csv source
  virtual const std::vector<DeviceInfo>& devices() const = 0;
  virtual std::vector<DeviceReading> Read() = 0;
};

}  // namespace fastenough::sample
