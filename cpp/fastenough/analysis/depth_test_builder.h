// Test helper for the deeper analyses: rows with every field those analyses
// read (thread, correlation, External id, stream), kernel launch figures and
// allocator events. Times are integer ns.
#pragma once

#include <cmath>
#include <limits>
#include <string_view>

#include "fastenough/trace/event_store.h"

namespace fastenough::analysis::testing {

class DepthBuilder {
 public:
  using K = trace::EventKind;
  trace::EventStore store;

  int32_t Host(K kind, std::string_view name, int64_t ts, int64_t dur, int64_t corr = trace::kNone,
               int64_t tid = 1, int64_t ext = trace::kNone) {
    trace::SliceRow r;
    r.kind = kind;
    r.name = store.strings().Intern(name);
    r.ts_ns = ts;
    r.dur_ns = dur;
    r.pid = 1;
    r.tid = tid;
    r.correlation = corr;
    r.external_id = ext;
    store.AddSlice(r);
    return static_cast<int32_t>(store.size() - 1);
  }
  int32_t Op(std::string_view name, int64_t ts, int64_t dur, int64_t tid = 1, int64_t ext = trace::kNone) {
    return Host(K::kCpuOp, name, ts, dur, trace::kNone, tid, ext);
  }
  int32_t Annotation(std::string_view name, int64_t ts, int64_t dur, int64_t tid = 1) {
    return Host(K::kUserAnnotation, name, ts, dur, trace::kNone, tid);
  }
  int32_t Runtime(std::string_view name, int64_t ts, int64_t dur, int64_t corr, int64_t tid = 1) {
    return Host(K::kRuntime, name, ts, dur, corr, tid);
  }
  int32_t Device(K kind, std::string_view name, int64_t ts, int64_t dur, int64_t stream,
                 int64_t corr = trace::kNone, int32_t device = 0, int64_t ext = trace::kNone) {
    trace::SliceRow r;
    r.kind = kind;
    r.name = store.strings().Intern(name);
    r.ts_ns = ts;
    r.dur_ns = dur;
    r.pid = device;
    r.tid = stream;
    r.device = device;
    r.stream = stream;
    r.correlation = corr;
    r.external_id = ext;
    store.AddSlice(r);
    return static_cast<int32_t>(store.size() - 1);
  }
  int32_t Kernel(std::string_view name, int64_t ts, int64_t dur, int64_t stream,
                 int64_t corr = trace::kNone, int32_t device = 0) {
    return Device(K::kKernel, name, ts, dur, stream, corr, device);
  }
  // Launch figures of the kernel row just added (NaN: absent).
  void Args(double blocks_per_sm, double warps_per_sm, double occupancy_pct) {
    store.kernel_args.push_back({static_cast<uint32_t>(store.size() - 1), blocks_per_sm,
                                 warps_per_sm, occupancy_pct});
  }
  void Memory(int64_t ts, int64_t addr, int64_t bytes, int64_t total_allocated,
              int64_t total_reserved, int64_t device_type = 1, int64_t device_id = 0,
              int64_t tid = 1) {
    trace::MemoryEvent m;
    m.ts_ns = ts;
    m.pid = 1;
    m.tid = tid;
    m.device_type = device_type;
    m.device_id = device_id;
    m.addr = addr;
    m.bytes = bytes;
    m.total_allocated = total_allocated;
    m.total_reserved = total_reserved;
    store.memory_events.push_back(m);
  }
  void Properties(int32_t id, int num_sms, int max_threads_per_sm, int warp_size,
                  int64_t total_memory = 0, int major = 8) {
    trace::DeviceProperties p;
    p.id = id;
    p.name = "Test GPU";
    p.num_sms = num_sms;
    p.max_threads_per_sm = max_threads_per_sm;
    p.warp_size = warp_size;
    p.total_memory_bytes = total_memory;
    p.compute_major = major;
    store.device_properties.push_back(p);
  }
  trace::EventStore& Finish() {
    store.Finalize();
    return store;
  }
};

inline constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();

}  // namespace fastenough::analysis::testing
