// Device peaks: the vendor's published dense (not sparse) throughput per
// dtype and the memory bandwidth of the devices our users run, each with the
// document it comes from (docs/roofline.md has the table). A device is what
// PyTorch sees as one device: one GCD of an MI250 / MI250X (half the OAM
// figures AMD publishes), one GPU elsewhere.
//
// Lookup takes the trace's deviceProperties:
//   "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB",
//     "totalGlobalMem": 84990623744, "computeMajor": 8, "computeMinor": 0, "numSms": 108, ...}]
// and matches the name tolerantly (case, punctuation, vendor words); where
// the name does not say (ROCm's "AMD Radeon Graphics"), the architecture
// (computeMajor.minor = gfx9.0 / 9.4 / 9.5), the compute-unit count and the
// memory size pick the device.
//
// A JSON file (--peaks FILE.json) overrides entries or adds devices:
//   {"devices": [{"name": "NVIDIA A100-SXM4-80GB",
//                 "tflops": {"fp32": 19.5, "bf16": 312},
//                 "memory_tb_per_s": 2.039,
//                 "source": "our measurement, 2026-05"}]}
// tflops keys: fp64, fp64_matrix, fp32, fp32_matrix, tf32, bf16, fp16, fp8
// (TFLOP/s, dense); memory_tb_per_s in TB/s (1e12 bytes/s). A name that
// matches a built-in device overrides only the fields given; any other name
// adds a device matched by that name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fastenough/roofline/dtype.h"
#include "fastenough/trace/event_store.h"
#include "fastenough/util/status.h"

namespace fastenough::roofline {

struct DevicePeaks {
  std::string name;  // canonical: "NVIDIA A100 SXM4 80GB", "AMD Instinct MI250X (one GCD)"
  // TFLOP/s, dense; 0 where not published (or not supported).
  double fp64 = 0;         // vector / CUDA cores
  double fp64_matrix = 0;  // tensor cores / MFMA
  double fp32 = 0;         // vector
  double fp32_matrix = 0;  // AMD MFMA FP32 (NVIDIA has none: FP32 GEMMs use TF32 or the vector units)
  double tf32 = 0;
  double bf16 = 0;  // matrix
  double fp16 = 0;  // matrix
  double fp8 = 0;   // matrix
  double memory_tb_per_s = 0;
  std::string source;  // the vendor document (name and URL)
};

// What Lookup matched, and how.
struct DeviceMatch {
  DevicePeaks peaks;
  std::string how;  // "name", "name + memory size", "architecture gfx90a with 104 CUs", ...
};

// The trace's description of a device (trace::DeviceProperties' fields).
struct DeviceQuery {
  std::string name;
  int num_sms = 0;  // SMs / CUs; 0 unknown
  int64_t total_memory_bytes = 0;
  int compute_major = 0;
  int compute_minor = 0;
  int warp_size = 0;  // 64 on AMD CDNA, 32 on NVIDIA; 0 unknown
  static DeviceQuery From(const trace::DeviceProperties& p);
};

// The peak FLOP/s that bounds work of `dtype` on `device`: the matrix units'
// figure for matmul-class work (FP32 there: the FP32 matrix rate where the
// device has one, else the vector rate; ask for kTF32 to use TF32), the
// vector rate for everything else (FP64 vector, else the FP32 vector rate:
// elementwise kernels compute in FP32 whatever they store).
// NotFound when the device's documents publish no figure for it.
struct PeakFlops {
  double flop_per_s = 0;
  std::string column;  // "bf16", "fp32_matrix", "fp32", ...
};
StatusOr<PeakFlops> PeakFlopsFor(const DevicePeaks& d, Dtype dtype, bool matrix);
inline double MemoryBytesPerSecond(const DevicePeaks& d) { return d.memory_tb_per_s * 1e12; }

class PeakTable {
 public:
  // The built-in table.
  static PeakTable Builtin();
  const std::vector<DevicePeaks>& devices() const { return devices_; }

  // The device the trace describes; NotFound (with the name) when none fits.
  StatusOr<DeviceMatch> Lookup(const DeviceQuery& q) const;
  // By name only (--device NAME).
  StatusOr<DeviceMatch> Lookup(std::string_view name) const;

  // Applies a --peaks override file's text (see above). InvalidArgument with
  // the reason on malformed input; the table is unchanged then.
  Status ApplyOverride(std::string_view json);

  // Up to n device names of the table closest to `name` (an unknown --device
  // NAME): the fewest edits for the name to appear inside the device's
  // (case, punctuation and spaces ignored), table order among equals; none
  // further than a third of the name's letters (at least 2).
  std::vector<std::string> CloseNames(std::string_view name, size_t n = 5) const;

 private:
  std::vector<DevicePeaks> devices_;
  std::vector<std::string> added_keys_;  // normalised names of devices added by overrides
  size_t builtin_count_ = 0;
  // Index into devices_ of the built-in entry the query fits, or -1.
  long MatchBuiltin(const DeviceQuery& q, std::string* how) const;
};

// "NVIDIA A100-SXM4-80GB" -> "nvidiaa100sxm480gb" (lower-case letters and
// digits only): how an override's name is compared with a trace's.
std::string SquashDeviceName(std::string_view name);

}  // namespace fastenough::roofline
