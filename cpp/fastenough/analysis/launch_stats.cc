#include "fastenough/analysis/launch_stats.h"

namespace fastenough::analysis {

LaunchStats AnalyzeLaunches(const trace::EventStore& store,
                            const std::vector<uint32_t>& device_index) {
  LaunchStats s;
  std::vector<int64_t> launch, queue, call;
  for (uint32_t row : device_index) {
    if (store.kind[row] != trace::EventKind::kKernel) continue;
    ++s.kernel_count;
    const int32_t l = store.launch_row[row];
    if (l == trace::kNoRow) continue;
    ++s.launched_count;
    launch.push_back(store.ts_ns[row] - store.ts_ns[l]);
    queue.push_back(store.ts_ns[row] - store.end_ns(l));
    call.push_back(store.dur_ns[l]);
    if (store.dur_ns[row] < store.dur_ns[l]) ++s.short_kernel_count;
  }
  s.launch_delay = Summarize(launch);
  s.queue_delay = Summarize(queue);
  s.launch_call = Summarize(call);
  return s;
}

}  // namespace fastenough::analysis
