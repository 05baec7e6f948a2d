// Ascend NPUs through the `npu-smi info` text table (there is no stable C
// library to dlopen across CANN versions). The command is `npu-smi info`
// unless FASTENOUGH_NPU_SMI names another (tests use recorded outputs).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fastenough/sample/device_backend.h"
#include "fastenough/util/status.h"

namespace fastenough::sample {

struct NpuSmiTable {
  std::vector<DeviceInfo> devices;
  std::vector<DeviceReading> readings;  // same order as devices
};

// Parses the output of `npu-smi info`. Two rows per chip:
//   | 0     910B3               | OK            | 93.5        40                0    / 0             |
//   | 0                         | 0000:C1:00.0  | 0           0    / 0          3161 / 65536         |
// (NPU id + name | health | power temp hugepages) then (chip | bus id |
// AICore% then "used / total" pairs: Memory-Usage(MB) and, on boards with
// HBM, HBM-Usage(MB)). Device memory is HBM when the header names it, else
// Memory-Usage. "NA" fields are absent. The process table that follows
//   | 2       0                 | 1234          | python                   | 4096                    |
// fills DeviceReading::processes. DataLoss when no device row is found.
StatusOr<NpuSmiTable> ParseNpuSmiInfo(std::string_view text);

class NpuSmiBackend : public DeviceBackend {
 public:
  // Runs the command once; NotFound when it cannot run or shows no device.
  static StatusOr<std::unique_ptr<NpuSmiBackend>> Load(const std::string& command);
  static std::string DefaultCommand();

  const char* name() const override { return "npu-smi"; }
  const std::vector<DeviceInfo>& devices() const override { return devices_; }
  std::vector<DeviceReading> Read() override;

 private:
  std::string command_;
  std::vector<DeviceInfo> devices_;
};

// Runs a shell command and returns its stdout (exit status must be 0).
StatusOr<std::string> RunCommand(const std::string& command);

}  // namespace fastenough::sample
