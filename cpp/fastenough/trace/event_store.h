// EventStore: one loaded trace (one rank), stored column-wise.
//
// Every complete ("ph":"X") event becomes a row of the slice table. Columns
// are plain vectors indexed by the row number, so an analysis touches only the
// columns it needs. Readers fill the table through AddSlice(); Finalize()
// resolves the links once (kernel -> launching runtime call by correlation,
// both -> enclosing CPU op by External id) and sorts nothing: rows keep file
// order, and analyses that need time order build their own index.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fastenough/trace/counters.h"
#include "fastenough/util/string_table.h"

namespace fastenough::trace {

// What a slice is, from its category (new and old Kineto names).
enum class EventKind : uint8_t {
  kCpuOp,              // cpu_op, Operator
  kUserAnnotation,     // user_annotation (record_function), ProfilerStep#N
  kPythonFunction,     // python_function (with_stack), "file.py(12): fn"
  kRuntime,            // cuda_runtime, Runtime, mtia_runtime, privateuse1_runtime, ...
  kDriver,             // cuda_driver (cuLaunchKernel ...)
  kKernel,             // kernel, Kernel, mtia_ccp_events, NPU AI_CORE tasks
  kMemcpy,             // gpu_memcpy, Memcpy
  kMemset,             // gpu_memset, Memset
  kGpuUserAnnotation,  // gpu_user_annotation: a device-side range, not activity
  kDeviceSync,         // cuda_sync: device-side view of a synchronisation
  kOther,              // anything else (Trace, overhead, unknown categories)
};
const char* EventKindName(EventKind k);
// True for kinds that are device activity (count towards busy time).
inline bool IsDeviceActivity(EventKind k) {
  return k == EventKind::kKernel || k == EventKind::kMemcpy || k == EventKind::kMemset;
}

constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
constexpr int32_t kNoRow = -1;
// pid/tid given as text ("pid": "Spans") get ids from here up; the text is
// kept in process_names / thread_names under that id.
constexpr int64_t kTextIdBase = int64_t{1} << 40;
// The category of the events `fastenough analyze --annotate` adds to a trace.
inline constexpr std::string_view kAnnotationCategory = "fastenough";

enum class TraceFormat : uint8_t { kKineto, kNpuTraceView, kLegacyArray };
const char* TraceFormatName(TraceFormat f);

struct DeviceProperties {
  int64_t id = 0;
  std::string name;
  int64_t total_memory_bytes = 0;
  int compute_major = 0;
  int compute_minor = 0;
  int num_sms = 0;
  int max_threads_per_sm = 0;  // "maxThreadsPerMultiprocessor"; 0 unknown
  int warp_size = 0;           // "warpSize" (32 on NVIDIA, 64 on AMD CDNA); 0 unknown
  // Resident warps an SM can hold at most; 0 when the trace does not say.
  int max_warps_per_sm() const {
    return warp_size > 0 ? max_threads_per_sm / warp_size : 0;
  }
};

// Launch figures Kineto (CUPTI) writes in a kernel's args:
//   "args": {..., "blocks per SM": 414.51852, "warps per SM": 1658.0741,
//            "grid": [44768, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %": 75}
// Kept for the kernels that have at least one of them (ROCm and NPU traces
// have none). NaN: that figure was absent.
struct KernelLaunchArgs {
  uint32_t row = 0;
  double blocks_per_sm = std::numeric_limits<double>::quiet_NaN();
  double warps_per_sm = std::numeric_limits<double>::quiet_NaN();
  double occupancy_pct = std::numeric_limits<double>::quiet_NaN();
};

// One allocator event of a trace recorded with profile_memory=True:
//   {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": P, "tid": T,
//    "ts": 1669783687464300, "args": {"Device Type": 1, "Device Id": 1, "Addr": 1399...,
//    "Bytes": 5242880, "Total Allocated": 5435638784, "Total Reserved": 12782141440}}
// Bytes > 0 allocates the block at Addr, < 0 frees it; the totals are the
// allocator's figures after the event. Device Type is c10::DeviceType (0 CPU,
// 1 CUDA, ...); kNone where a field was absent.
struct MemoryEvent {
  int64_t ts_ns = 0;
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t device_type = kNone;
  int64_t device_id = kNone;
  int64_t addr = kNone;
  int64_t bytes = 0;
  int64_t total_allocated = kNone;
  int64_t total_reserved = kNone;
};

// The event a CUDA event synchronisation waits on, from a cuda_sync row:
//   {"cat": "cuda_sync", "name": "Event Sync", "args": {"wait_on_stream": 7,
//    "wait_on_cuda_event_record_corr_id": 1533, "stream": -1, "correlation": 1536, ...}}
struct SyncWaitArgs {
  uint32_t row = 0;
  int64_t wait_on_stream = kNone;
  int64_t record_correlation = kNone;  // correlation of the cudaEventRecord call
};

// One row as a reader hands it over; optional fields stay at their defaults.
struct SliceRow {
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
  EventKind kind = EventKind::kOther;
  StringId name = kNoString;
  StringId category = kNoString;  // the raw category text
  int64_t pid = 0;
  int64_t tid = 0;
  int32_t device = -1;  // device index for device activity
  int64_t stream = -1;  // stream id for device activity
  int64_t correlation = kNone;
  int64_t external_id = kNone;
  int64_t bytes = -1;          // memcpy / memset size
  StringId input_dims = kNoString;   // raw JSON text of args["Input Dims"]
  StringId input_types = kNoString;  // raw JSON text of args["Input type"]
  StringId input_strides = kNoString;  // raw JSON text of args["Input Strides"]
  // raw JSON text of args["Concrete Inputs"] (PyTorch 2.1+): scalars and int
  // lists as text, "" for tensors, e.g. ["", "[2, 2]", "1", "True"]
  StringId input_concrete = kNoString;
  int64_t python_id = kNone;         // args["Python id"]
  int64_t python_parent_id = kNone;  // args["Python parent id"]
};

class EventStore {
 public:
  EventStore() = default;
  EventStore(const EventStore&) = delete;
  EventStore& operator=(const EventStore&) = delete;
  EventStore(EventStore&&) = default;
  EventStore& operator=(EventStore&&) = default;

  // ---- filled by readers ----
  void AddSlice(const SliceRow& row);
  StringTable& strings() { return strings_; }
  Counters& counters() { return counters_; }
  // Resolves launch / CPU-op links; call once after the last AddSlice.
  void Finalize();

  // ---- read by analyses ----
  size_t size() const { return ts_ns.size(); }
  const StringTable& strings() const { return strings_; }
  const Counters& counters() const { return counters_; }
  std::string_view name_of(size_t row) const { return strings_.Get(name[row]); }
  int64_t end_ns(size_t row) const { return ts_ns[row] + dur_ns[row]; }

  // Slice columns (one entry per row).
  std::vector<int64_t> ts_ns;
  std::vector<int64_t> dur_ns;
  std::vector<EventKind> kind;
  std::vector<StringId> name;
  std::vector<StringId> category;
  std::vector<int64_t> pid;
  std::vector<int64_t> tid;
  std::vector<int32_t> device;
  std::vector<int64_t> stream;
  std::vector<int64_t> correlation;
  std::vector<int64_t> external_id;
  std::vector<int64_t> bytes;
  std::vector<StringId> input_dims;
  std::vector<StringId> input_types;
  std::vector<StringId> input_strides;
  std::vector<StringId> input_concrete;
  std::vector<int64_t> python_id;
  std::vector<int64_t> python_parent_id;

  // Links resolved by Finalize().
  // For device activity: the runtime/driver row that launched it (same correlation).
  std::vector<int32_t> launch_row;
  // For runtime/driver calls and device activity: the CPU op with the same External id.
  std::vector<int32_t> cpu_op_row;

  // Per-trace facts.
  TraceFormat format = TraceFormat::kKineto;
  std::string path;
  uint64_t file_bytes = 0;     // size on disk
  uint64_t json_bytes = 0;     // size after decompression
  uint64_t event_count = 0;    // elements of the event list, all phases
  int rank = 0;                // distributedInfo.rank, 0 when absent
  bool rank_known = false;
  int world_size = 1;
  std::string backend;         // distributedInfo.backend
  int64_t base_time_ns = kNone;  // baseTimeNanoseconds when present
  std::vector<DeviceProperties> device_properties;
  // Side tables for the few rows that carry them (row order).
  std::vector<KernelLaunchArgs> kernel_args;
  std::vector<SyncWaitArgs> sync_waits;
  std::vector<MemoryEvent> memory_events;  // file order
  std::unordered_map<int64_t, std::string> process_names;  // pid -> process_name
  std::unordered_map<int64_t, std::string> thread_names;   // tid -> thread_name
  // Byte offset (in the decompressed text) of the ']' that closes the event
  // list; -1 when the list never closed (a truncated trace).
  int64_t events_close_offset = -1;
  // Events of category "fastenough": annotations an earlier
  // `fastenough analyze --annotate` wrote. Kept apart, never analysed.
  struct Annotation {
    char ph = '?';
    std::string name;
    int64_t ts_ns = 0;
  };
  std::vector<Annotation> annotations;

 private:
  StringTable strings_;
  Counters counters_;
};

}  // namespace fastenough::trace
