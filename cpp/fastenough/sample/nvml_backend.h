// NVIDIA devices through NVML, loaded with dlopen at run time so that the
// build has no CUDA dependency and a machine without a driver simply has no
// NVML backend. The library path is `libnvidia-ml.so.1` unless the env var
// FASTENOUGH_NVML_LIBRARY names another (tests use a stand-in library).
#pragma once

#include <memory>
#include <string>

#include "fastenough/sample/device_backend.h"
#include "fastenough/util/status.h"

namespace fastenough::sample {

class NvmlBackend : public DeviceBackend {
 public:
  // NotFound when the library is missing, Unimplemented when a required
  // symbol is, Internal when nvmlInit fails (no driver loaded, no device).
  static StatusOr<std::unique_ptr<NvmlBackend>> Load(const std::string& library_path);
  // The path from FASTENOUGH_NVML_LIBRARY or the default soname.
  static std::string DefaultLibraryPath();

  ~NvmlBackend() override;
  const char* name() const override { return "nvml"; }
  const std::vector<DeviceInfo>& devices() const override { return devices_; }
  std::vector<DeviceReading> Read() override;

  struct Api;

 private:
  NvmlBackend() = default;
  void* lib_ = nullptr;
  std::unique_ptr<Api> api_;
  std::vector<void*> handles_;
  std::vector<DeviceInfo> devices_;
};

}  // namespace fastenough::sample
