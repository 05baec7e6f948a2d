// Test helper: builds small hand-written Kineto-shaped traces straight into
// an EventStore (times in microseconds, as in the JSON). Header-only, used by
// the detector tests only.
#pragma once

#include <string>

#include "fastenough/trace/event_store.h"

namespace fastenough::findings::testing {

class TraceBuilder {
 public:
  trace::EventStore store;
  int64_t pid = 100;
  int64_t tid = 100;
  int32_t device = 0;  // of the device activity Launch adds

  static int64_t Ns(double us) { return static_cast<int64_t>(us * 1000.0 + 0.5); }

  void DeviceMajor(int major) {
    trace::DeviceProperties p;
    p.id = 0;
    p.name = "NVIDIA A100";
    p.compute_major = major;
    store.device_properties.push_back(p);
  }
  // A host slice; returns its row.
  int32_t Host(trace::EventKind k, std::string_view name, double ts, double dur,
               int64_t ext = trace::kNone, std::string_view dims = "", std::string_view types = "") {
    trace::SliceRow r;
    r.kind = k;
    r.name = store.strings().Intern(name);
    r.ts_ns = Ns(ts);
    r.dur_ns = Ns(dur);
    r.pid = pid;
    r.tid = tid;
    r.external_id = ext;
    if (!dims.empty()) r.input_dims = store.strings().Intern(dims);
    if (!types.empty()) r.input_types = store.strings().Intern(types);
    store.AddSlice(r);
    return static_cast<int32_t>(store.size() - 1);
  }
  int32_t Op(std::string_view name, double ts, double dur, std::string_view dims = "",
             std::string_view types = "") {
    return Host(trace::EventKind::kCpuOp, name, ts, dur, ++ext_, dims, types);
  }
  int64_t last_ext() const { return ext_; }
  void Step(int n, double ts, double dur) {
    Host(trace::EventKind::kUserAnnotation, "ProfilerStep#" + std::to_string(n), ts, dur);
  }
  void Py(std::string_view name, double ts, double dur) {
    Host(trace::EventKind::kPythonFunction, name, ts, dur);
  }
  // A runtime call (under the op with External id `ext`) and the device
  // activity it launched.
  void Launch(double ts, double dur, trace::EventKind dev_kind, std::string_view dev_name,
              double dev_ts, double dev_dur, std::string_view call = "cudaLaunchKernel",
              int64_t stream = 7, int64_t bytes = -1) {
    const int64_t corr = ++corr_;
    trace::SliceRow r;
    r.kind = trace::EventKind::kRuntime;
    r.name = store.strings().Intern(call);
    r.ts_ns = Ns(ts);
    r.dur_ns = Ns(dur);
    r.pid = pid;
    r.tid = tid;
    r.correlation = corr;
    r.external_id = ext_;
    store.AddSlice(r);
    trace::SliceRow d;
    d.kind = dev_kind;
    d.name = store.strings().Intern(dev_name);
    d.ts_ns = Ns(dev_ts);
    d.dur_ns = Ns(dev_dur);
    d.pid = 0;
    d.tid = stream;
    d.device = device;
    d.stream = stream;
    d.correlation = corr;
    d.external_id = ext_;
    d.bytes = bytes;
    store.AddSlice(d);
  }
  void Kernel(double ts, double dur, std::string_view name, double kts, double kdur, int64_t stream = 7) {
    Launch(ts, dur, trace::EventKind::kKernel, name, kts, kdur, "cudaLaunchKernel", stream);
  }
  void Runtime(std::string_view call, double ts, double dur) {
    trace::SliceRow r;
    r.kind = trace::EventKind::kRuntime;
    r.name = store.strings().Intern(call);
    r.ts_ns = Ns(ts);
    r.dur_ns = Ns(dur);
    r.pid = pid;
    r.tid = tid;
    r.correlation = ++corr_;
    r.external_id = ext_;
    store.AddSlice(r);
  }
  trace::EventStore& Finish() {
    store.Finalize();
    return store;
  }

 private:
  int64_t ext_ = 0;
  int64_t corr_ = 1000;
};

}  // namespace fastenough::findings::testing
