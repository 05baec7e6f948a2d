#include "fastenough/trace/event_store.h"

namespace fastenough::trace {

const char* EventKindName(EventKind k) {
  switch (k) {
    case EventKind::kCpuOp: return "cpu_op";
    case EventKind::kUserAnnotation: return "user_annotation";
    case EventKind::kPythonFunction: return "python_function";
    case EventKind::kRuntime: return "runtime";
    case EventKind::kDriver: return "driver";
    case EventKind::kKernel: return "kernel";
    case EventKind::kMemcpy: return "memcpy";
    case EventKind::kMemset: return "memset";
    case EventKind::kGpuUserAnnotation: return "gpu_user_annotation";
    case EventKind::kDeviceSync: return "device_sync";
    case EventKind::kOther: return "other";
  }
  return "other";
}

const char* TraceFormatName(TraceFormat f) {
  switch (f) {
    case TraceFormat::kKineto: return "kineto";
    case TraceFormat::kNpuTraceView: return "npu-trace-view";
    case TraceFormat::kLegacyArray: return "legacy-array";
  }
  return "unknown";
}

void EventStore::AddSlice(const SliceRow& r) {
  ts_ns.push_back(r.ts_ns);
  dur_ns.push_back(r.dur_ns);
  kind.push_back(r.kind);
  name.push_back(r.name);
  category.push_back(r.category);
  pid.push_back(r.pid);
  tid.push_back(r.tid);
  device.push_back(r.device);
  stream.push_back(r.stream);
  correlation.push_back(r.correlation);
  external_id.push_back(r.external_id);
  bytes.push_back(r.bytes);
  input_dims.push_back(r.input_dims);
  input_types.push_back(r.input_types);
  input_strides.push_back(r.input_strides);
  input_concrete.push_back(r.input_concrete);
  python_id.push_back(r.python_id);
  python_parent_id.push_back(r.python_parent_id);
}

void EventStore::Finalize() {
  const size_t n = size();
  launch_row.assign(n, kNoRow);
  cpu_op_row.assign(n, kNoRow);

  // correlation -> launching runtime/driver row; External id -> CPU op row.
  // When several CPU ops share an External id (rare; nested re-dispatch) the
  // innermost, i.e. the latest starting, wins: it is the op that launched.
  std::unordered_map<int64_t, int32_t> launch_by_corr;
  // Correlations given to several launch calls (a damaged or concatenated
  // trace): every candidate, for the device events of that correlation.
  std::unordered_map<int64_t, std::vector<int32_t>> shared_corr;
  std::unordered_map<int64_t, int32_t> op_by_ext;
  launch_by_corr.reserve(n / 4 + 1);
  op_by_ext.reserve(n / 4 + 1);
  for (size_t i = 0; i < n; ++i) {
    const EventKind k = kind[i];
    if ((k == EventKind::kRuntime || k == EventKind::kDriver) && correlation[i] != kNone) {
      auto [it, inserted] = launch_by_corr.emplace(correlation[i], static_cast<int32_t>(i));
      if (!inserted) {
        auto& all = shared_corr[correlation[i]];
        if (all.empty()) all.push_back(it->second);
        all.push_back(static_cast<int32_t>(i));
        counters_.Add(Counter::correlation_duplicated);
      }
    } else if (k == EventKind::kCpuOp && external_id[i] != kNone && external_id[i] != 0) {
      auto [it, inserted] = op_by_ext.emplace(external_id[i], static_cast<int32_t>(i));
      if (!inserted && ts_ns[i] >= ts_ns[it->second]) it->second = static_cast<int32_t>(i);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const EventKind k = kind[i];
    if (IsDeviceActivity(k) || k == EventKind::kDeviceSync) {
      if (correlation[i] != kNone) {
        auto it = launch_by_corr.find(correlation[i]);
        if (it != launch_by_corr.end()) {
          int32_t launch = it->second;
          if (!shared_corr.empty()) {
            // Of the calls sharing the id, the latest that starts before
            // the device event (a launch cannot follow its kernel).
            auto sh = shared_corr.find(correlation[i]);
            if (sh != shared_corr.end()) {
              for (int32_t c : sh->second) {
                if (ts_ns[c] <= ts_ns[i] && (ts_ns[launch] > ts_ns[i] || ts_ns[c] > ts_ns[launch])) {
                  launch = c;
                }
              }
            }
          }
          launch_row[i] = launch;
          if (ts_ns[i] < ts_ns[launch]) counters_.Add(Counter::kernel_before_launch);
        } else if (IsDeviceActivity(k)) {
          counters_.Add(Counter::kernel_without_launch);
        }
      } else if (IsDeviceActivity(k)) {
        counters_.Add(Counter::kernel_without_launch);
      }
    }
    if (k == EventKind::kRuntime || k == EventKind::kDriver || IsDeviceActivity(k)) {
      if (external_id[i] != kNone && external_id[i] != 0) {
        auto it = op_by_ext.find(external_id[i]);
        if (it != op_by_ext.end()) cpu_op_row[i] = it->second;
      }
    }
  }
}

}  // namespace fastenough::trace
