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
    if (store.dur_ns[row] < store.dur_ns[l]) ++s.short_kernel_count;
    // A kernel that starts before its launch call (clock skew, negative or
    // shuffled timestamps: counted as kernel_before_launch by the reader)
    // says nothing about launch delays: left out, never a negative delay.
    if (store.ts_ns[row] < store.ts_ns[l]) continue;
    launch.push_back(store.ts_ns[row] - store.ts_ns[l]);
    queue.push_back(store.ts_ns[row] - store.end_ns(l));
    call.push_back(store.dur_ns[l]);
  }
  s.launch_delay = Summarize(launch);
  s.queue_delay = Summarize(queue);
  s.launch_call = Summarize(call);
  return s;
}

}  // namespace fastenough::analysis
