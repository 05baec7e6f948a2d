// Test helper: builds an EventStore row by row with short calls.
#pragma once

#include <string_view>

#include "fastenough/trace/event_store.h"

namespace fastenough::analysis::testing {

class StoreBuilder {
 public:
  using K = trace::EventKind;
  // Device activity on (device, stream); corr = kNone for "no launch".
  StoreBuilder& Device(K kind, std::string_view name, int64_t ts, int64_t dur, int32_t device,
                       int64_t stream, int64_t corr = trace::kNone) {
    trace::SliceRow r;
    r.kind = kind;
    r.name = store_.strings().Intern(name);
    r.ts_ns = ts;
    r.dur_ns = dur;
    r.device = device;
    r.stream = stream;
    r.correlation = corr;
    store_.AddSlice(r);
    return *this;
  }
  StoreBuilder& Kernel(std::string_view name, int64_t ts, int64_t dur, int64_t stream,
                       int64_t corr = trace::kNone, int32_t device = 0) {
    return Device(K::kKernel, name, ts, dur, device, stream, corr);
  }
  StoreBuilder& Launch(int64_t ts, int64_t dur, int64_t corr,
                       std::string_view name = "cudaLaunchKernel") {
    trace::SliceRow r;
    r.kind = K::kRuntime;
    r.name = store_.strings().Intern(name);
    r.ts_ns = ts;
    r.dur_ns = dur;
    r.pid = 1;
    r.tid = 1;
    r.correlation = corr;
    store_.AddSlice(r);
    return *this;
  }
  StoreBuilder& Host(K kind, std::string_view name, int64_t ts, int64_t dur, int64_t tid = 1) {
    trace::SliceRow r;
    r.kind = kind;
    r.name = store_.strings().Intern(name);
    r.ts_ns = ts;
    r.dur_ns = dur;
    r.pid = 1;
    r.tid = tid;
    store_.AddSlice(r);
    return *this;
  }
  trace::EventStore Build() {
    store_.Finalize();
    return std::move(store_);
  }

 private:
  trace::EventStore store_;
};

// The hand-computed example used by the analysis tests (arithmetic in
// rank_analysis_test.cc).
inline trace::EventStore ExampleStore() {
  using K = trace::EventKind;
  StoreBuilder b;
  b.Launch(80, 10, 1).Kernel("gemm_a", 100, 50, 7, 1);           // K1
  b.Launch(95, 10, 2).Kernel("elementwise", 160, 5, 7, 2);       // K2 (short)
  b.Launch(200, 20, 3).Kernel("gemm_a", 300, 100, 7, 3);         // K3
  b.Launch(410, 5, 4, "cudaMemcpyAsync").Device(K::kMemcpy, "Memcpy HtoD", 500, 40, 0, 7, 4);
  b.Launch(340, 5, 5).Kernel("ncclDevKernel_AllReduce_Sum_f32", 350, 100, 8, 5);  // N1
  b.Device(K::kMemset, "Memset (Device)", 445, 20, 0, 8);        // S1, no launch
  b.Kernel("elementwise", 600, 10, 8);                           // K4, no launch
  b.Kernel("gemm_a", 1000, 30, 7, trace::kNone, /*device=*/1);  // K5 on device 1
  b.Host(K::kUserAnnotation, "ProfilerStep#1", 50, 150);
  b.Host(K::kUserAnnotation, "ProfilerStep#2", 200, 250);
  b.Host(K::kGpuUserAnnotation, "ProfilerStep#2", 210, 250);  // device mirror: ignored
  b.Host(K::kUserAnnotation, "ProfilerStep#3", 450, 250);
  b.Host(K::kCpuOp, "aten::linear", 60, 100);
  b.Host(K::kCpuOp, "aten::addmm", 70, 40);
  b.Host(K::kCpuOp, "aten::copy_", 75, 10);
  b.Host(K::kCpuOp, "aten::addmm", 120, 30);
  b.Host(K::kCpuOp, "aten::addmm", 200, 50, /*tid=*/2);
  return b.Build();
}

}  // namespace fastenough::analysis::testing
