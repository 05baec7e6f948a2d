// How efficiently the kernels used the device, from the launch figures CUPTI
// writes into each kernel's args ("blocks per SM", "warps per SM",
// "est. achieved occupancy %"), with the TensorBoard profiler plugin's
// definitions (pytorch/kineto tb_plugin/torch_tb_profiler/profiler/
// gpu_metrics_parser.py, range_utils.py), per device, per step and over the
// steady steps:
//
//   GPU utilisation  |union of kernels ∩ window| / |window|   (kernels only:
//                    memcpy and memset are not counted, as in the plugin)
//   est. SM efficiency  ∫ min(1, Σ blocks-per-SM of the kernels running at t) dt / |window|
//                    (merge_ranges_with_value: concurrent kernels add up, an SM
//                    cannot be more than busy; idle time counts as 0)
//   est. achieved occupancy  Σ occupancy% × |kernel ∩ window| / Σ |kernel ∩ window|
//                    over the kernels that carry it (calculate_occupancy)
//   tensor-core share  time of tensor-core kernels (op_roles.h, by name) /
//                    time of all kernels, both summed per kernel
//
// A figure whose input the trace lacks is NaN (null in the JSON): ROCm and
// NPU traces have no launch figures, CPU traces no kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastenough/analysis/steps.h"
#include "fastenough/timeline/step_windows.h"
#include "fastenough/trace/event_store.h"

namespace fastenough::analysis {

struct EfficiencyFigures {
  int64_t window_ns = 0;       // time measured over
  int64_t kernel_busy_ns = 0;  // |union of kernels ∩ window|
  int64_t kernel_ns = 0;       // Σ |kernel ∩ window|
  int64_t tensor_core_ns = 0;  // the same over tensor-core kernels
  double gpu_utilization = 0;  // NaN when window_ns == 0
  double sm_efficiency = 0;    // NaN without blocks per SM
  double achieved_occupancy_pct = 0;  // NaN without est. achieved occupancy
  double tensor_core_share = 0;       // NaN when kernel_ns == 0
};

struct DeviceEfficiency {
  int32_t device = -1;
  int num_sms = 0;           // deviceProperties numSms; 0 unknown
  int max_warps_per_sm = 0;  // maxThreadsPerMultiprocessor / warpSize; 0 unknown
  EfficiencyFigures steady;  // over the steady windows
  std::vector<EfficiencyFigures> steps;  // one per StepStats step (all steps)
};

// One kernel name on one device, over the steady windows (kernels that start in one).
struct KernelOccupancy {
  std::string name;
  int32_t device = -1;
  int64_t count = 0;
  int64_t total_ns = 0;
  double share_of_kernel_time = 0;    // total_ns / steady kernel_ns of the device
  double occupancy_pct = 0;           // duration-weighted; NaN when absent
  double blocks_per_sm = 0;           // duration-weighted; NaN when absent
  double warps_per_sm = 0;            // duration-weighted; NaN when absent
  bool tensor_core = false;
  bool communication = false;  // NCCL/RCCL/HCCL: few blocks by design
};

struct KernelEfficiency {
  bool has_launch_args = false;  // some kernel had blocks per SM or occupancy
  std::vector<DeviceEfficiency> devices;  // by device index
  std::vector<KernelOccupancy> kernels;   // by total_ns desc, then name
};

// steady: SteadyWindows(); steps: every step (per-step figures); device_index:
// DeviceActivityIndex() (device activity by device, stream, start).
KernelEfficiency AnalyzeKernelEfficiency(const trace::EventStore& store, const StepStats& steps,
                                         const std::vector<timeline::StepWindow>& steady,
                                         const std::vector<uint32_t>& device_index);

}  // namespace fastenough::analysis
