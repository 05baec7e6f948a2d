// The reader's side tables for the deeper analyses: kernel launch figures,
// allocator events, event-sync waits and the SM limits of deviceProperties.
#include <gtest/gtest.h>

#include <cmath>

#include "fastenough/trace/load_trace.h"

namespace fastenough::trace {
namespace {

constexpr char kTrace[] = R"({
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100", "totalGlobalMem": 85000000000,
    "computeMajor": 8, "computeMinor": 0, "maxThreadsPerMultiprocessor": 2048, "warpSize": 32,
    "numSms": 108}],
  "traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "triton__0d1d", "pid": 0, "tid": 7, "ts": 10.5, "dur": 3.25,
   "args": {"device": 0, "stream": 7, "correlation": 5, "registers per thread": 40,
            "blocks per SM": 414.51852, "warps per SM": 1658.0741, "grid": [44768, 1, 1],
            "block": [128, 1, 1], "est. achieved occupancy %": 75}},
  {"ph": "X", "cat": "kernel", "name": "no_args", "pid": 0, "tid": 7, "ts": 20, "dur": 1,
   "args": {"device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "occupancy_only", "pid": 0, "tid": 7, "ts": 30, "dur": 1,
   "args": {"device": 0, "stream": 7, "est. achieved occupancy %": "N/A"}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 9, "tid": 11,
   "ts": 1669783687464300, "args": {"Ev Idx": 42070, "Device Type": 1, "Device Id": 0,
   "Addr": 139926520725504, "Bytes": -5242880, "Total Allocated": 5435638784,
   "Total Reserved": 12782141440}},
  {"ph": "i", "cat": "cpu_instant_event", "name": "other instant", "pid": 9, "tid": 11, "ts": 5},
  {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": 40, "dur": 33,
   "args": {"cuda_sync_kind": "Event Sync", "wait_on_stream": 7,
            "wait_on_cuda_event_record_corr_id": 1533, "stream": -1, "correlation": 1536,
            "device": 0}}
]})";

TEST(ReaderDepthFields, KernelArgsMemoryAndSyncWaits) {
  auto r = ParseTrace(kTrace);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const EventStore& s = r.value();
  ASSERT_EQ(s.device_properties.size(), 1u);
  EXPECT_EQ(s.device_properties[0].max_threads_per_sm, 2048);
  EXPECT_EQ(s.device_properties[0].warp_size, 32);
  EXPECT_EQ(s.device_properties[0].max_warps_per_sm(), 64);

  ASSERT_EQ(s.kernel_args.size(), 1u);  // "N/A" is not a figure; no_args has none
  EXPECT_EQ(s.kernel_args[0].row, 0u);
  EXPECT_DOUBLE_EQ(s.kernel_args[0].blocks_per_sm, 414.51852);
  EXPECT_DOUBLE_EQ(s.kernel_args[0].warps_per_sm, 1658.0741);
  EXPECT_DOUBLE_EQ(s.kernel_args[0].occupancy_pct, 75);

  ASSERT_EQ(s.memory_events.size(), 1u);  // only "[memory]" instants
  const MemoryEvent& m = s.memory_events[0];
  EXPECT_EQ(m.ts_ns, 1669783687464300000);
  EXPECT_EQ(m.pid, 9);
  EXPECT_EQ(m.tid, 11);
  EXPECT_EQ(m.device_type, 1);
  EXPECT_EQ(m.device_id, 0);
  EXPECT_EQ(m.addr, 139926520725504);
  EXPECT_EQ(m.bytes, -5242880);
  EXPECT_EQ(m.total_allocated, 5435638784);
  EXPECT_EQ(m.total_reserved, 12782141440);

  ASSERT_EQ(s.sync_waits.size(), 1u);
  EXPECT_EQ(s.sync_waits[0].row, 3u);
  EXPECT_EQ(s.sync_waits[0].wait_on_stream, 7);
  EXPECT_EQ(s.sync_waits[0].record_correlation, 1533);
}

}  // namespace
}  // namespace fastenough::trace
