// The reader against real profiler traces (HTA test data, see
// shared/corpus/hta/SOURCE.md). Expected numbers were computed once with an
// independent Python count (json + decimal.Decimal, ts/dur rounded half away
// from zero to ns); the test skips when the corpus is absent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "fastenough/trace/load_trace.h"

namespace fastenough::trace {
namespace {

namespace fs = std::filesystem;
// FASTENOUGH_CORPUS in the environment wins (as for pytest): a git worktree
// has no ../shared beside it.
const fs::path kCorpus = [] {
  const char* env = std::getenv("FASTENOUGH_CORPUS");
  return env != nullptr && *env != '\0' ? fs::path(env) : fs::path(FASTENOUGH_CORPUS);
}();

struct Expected {
  const char* path;
  uint64_t events;      // len(traceEvents)
  size_t slices;        // events with ph "X" (or no ph)
  size_t kernels;       // cat in {kernel, Kernel, mtia_ccp_events}
  int rank;             // distributedInfo.rank, 0 when absent
  bool rank_known;
  uint64_t ts_sum_ns;   // sum of slice ts in ns, mod 2^64
  int64_t dur_sum_ns;   // sum of slice durations in ns (negative -> 0)
};

const Expected kTable[] = {
    {"_from_pr324/large_integer_trace/rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz", 2, 2, 1, 0, false, 300000u, 150000},
    {"amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 220, 113, 14, 0, false, 475014665449148961u, 52276266},
    {"call_stack/backward_thread.json", 7, 7, 1, 0, true, 11663048007206714000u, 521799000},
    {"cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 30, 16, 0, 34, true, 19393218976518052u, 3635095146},
    {"critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 1408, 868, 79, 0, true, 14692500394738961336u, 307784449000},
    {"critical_path/cuda_event_sync/event_sync_trace.json.gz", 92, 33, 4, 0, true, 1004546120765979152u, 11285000},
    {"critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", 149, 57, 3, 0, true, 5399721565711856920u, 65876000},
    {"critical_path/end_to_end/simple_add/input/trace.json.gz", 1348, 838, 79, 0, true, 17652971983753065184u, 306668311000},
    {"critical_path/end_to_end/simple_add/output/overlaid_critical_path_trace.json.gz", 1732, 838, 79, 0, true, 17652971983753065184u, 306668311000},
    {"critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz", 1348, 838, 79, 0, true, 17652971983753065184u, 306668311000},
    {"cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz", 4222, 2324, 0, 0, true, 9861881169204473024u, 109939346000},
    {"df_index_resolver/df_index_resolver.json.gz", 216092, 123379, 19370, 1, true, 3003857721669386512u, 9280747000},
    {"distributed_info_unavailable/distributed_info_not_found.json.gz", 2467, 2467, 0, 0, false, 3011757924902111248u, 250549000},
    {"execution_trace/benchmark_simple_add_trace.json.gz", 111, 56, 4, 0, true, 2370484788388228920u, 98922557000},
    {"mixed_files/rank_non_gpu.json.gz", 2467, 2467, 0, 0, true, 3011757924902111248u, 250549000},
    {"mtia_inference_trace/mtia_inference_rank_0.json.gz", 16158, 14179, 1313, 0, false, 9950897904015165881u, 7594837696},
    {"mtia_trace_single_rank/mtia_rank_0.json.gz", 455739, 138373, 25814, 0, true, 781150546511315591u, 156299996007},
    {"nccl_parser_config/nccl_data.json.gz", 40573, 26933, 2700, 0, true, 9405076654760619226u, 4383359174},
    {"negative_queue_length_values_check/rank0.json.gz", 108936, 67217, 6080, 0, true, 11853878527889336456u, 7904659000},
    {"ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 68692, 45420, 4350, 0, true, 14893143301292917551u, 3437226132},
    {"rank_non_gpu/rank_non_gpu.json.gz", 2467, 2467, 0, 0, true, 3011757924902111248u, 250549000},
    {"rank_unavailable/rank_not_found.json.gz", 2467, 2467, 0, 0, false, 3011757924902111248u, 250549000},
    {"timeline_analysis/sampled_rank-0.json.gz", 4855, 4811, 1154, 0, true, 15920393907568508192u, 7917027000},
    {"trace_compare/base/base.json.gz", 33, 33, 6, 1, true, 17950481243821889768u, 224906000},
    {"trace_compare/test/test.json.gz", 34, 34, 5, 1, true, 1165675636391949152u, 225364000},
    {"trace_diff/control/control.json.gz", 109123, 74937, 8568, 3, true, 6974884829405445232u, 3145078000},
    {"trace_diff/test/test.json.gz", 105167, 68324, 9876, 1, true, 10574019750793279520u, 5733877000},
    {"trace_file_list/inference_rank_1.json.gz", 54, 13, 4, 1, true, 3205228784712592384u, 1047538000},
    {"trace_filter/sampled_rank-0.json.gz", 4855, 4811, 1154, 0, true, 15920393907568508192u, 7917027000},
    {"trace_filter/sampled_rank-1.json.gz", 4720, 4676, 1104, 1, true, 10113326468722749584u, 8020966000},
    {"triton_example/triton_example.json.gz", 71, 8, 1, 0, false, 19309352420403056u, 13693360730},
};

TEST(ReaderCorpus, TableOfCounts) {
  if (!fs::is_directory(kCorpus)) GTEST_SKIP() << "corpus not present: " << kCorpus;
  for (const Expected& e : kTable) {
    SCOPED_TRACE(e.path);
    auto s = LoadTrace((kCorpus / e.path).string());
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_EQ(s->format, TraceFormat::kKineto);
    EXPECT_EQ(s->event_count, e.events);
    EXPECT_EQ(s->size(), e.slices);
    size_t kernels = 0;
    for (size_t i = 0; i < s->size(); ++i) {
      const std::string_view cat = s->strings().Get(s->category[i]);
      kernels += cat == "kernel" || cat == "Kernel" || cat == "mtia_ccp_events";
    }
    EXPECT_EQ(kernels, e.kernels);
    EXPECT_EQ(s->rank, e.rank);
    EXPECT_EQ(s->rank_known, e.rank_known);
    uint64_t ts_sum = 0;
    int64_t dur_sum = 0;
    for (size_t i = 0; i < s->size(); ++i) {
      ts_sum += static_cast<uint64_t>(s->ts_ns[i]);
      dur_sum += s->dur_ns[i];
    }
    EXPECT_EQ(ts_sum, e.ts_sum_ns);
    EXPECT_EQ(dur_sum, e.dur_sum_ns);
  }
}

TEST(ReaderCorpus, EveryTraceLoadsCleanly) {
  if (!fs::is_directory(kCorpus)) GTEST_SKIP() << "corpus not present: " << kCorpus;
  size_t loaded = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kCorpus)) {
    const std::string p = entry.path().string();
    if (!entry.is_regular_file()) continue;
    if (!(p.ends_with(".json") || p.ends_with(".json.gz"))) continue;
    if (p.ends_with("benchmark_simple_add_et.json.gz")) continue;
    SCOPED_TRACE(p);
    auto s = LoadTrace(p);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_FALSE(s->counters().HasErrors());
    for (Counter c : {Counter::file_truncated, Counter::gzip_truncated, Counter::event_malformed,
                      Counter::event_not_object, Counter::event_missing_ts,
                      Counter::unknown_category, Counter::integer_overflow}) {
      EXPECT_EQ(s->counters().Get(c), 0u) << GetCounterInfo(c).name;
    }
    ++loaded;
  }
  EXPECT_GE(loaded, 31u);
}

TEST(ReaderCorpus, ExecutionTraceIsAStructuralError) {
  const fs::path et = kCorpus / "execution_trace/benchmark_simple_add_et.json.gz";
  if (!fs::exists(et)) GTEST_SKIP() << "corpus not present: " << et;
  auto s = LoadTrace(et.string());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message().rfind(et.string() + ": not a trace: the top-level object has no "
                                                      "\"traceEvents\"",
                                       0),
            0u)
      << s.status().message();
}

TEST(ReaderCorpus, NanosecondResolutionTrace) {
  // displayTimeUnit "ns", yet ts stays in µs with 3 decimals.
  const fs::path p = kCorpus / "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
  if (!fs::exists(p)) GTEST_SKIP() << "corpus not present: " << p;
  auto s = LoadTrace(p.string());
  ASSERT_TRUE(s.ok());
  // Kineto: "baseTimeNanoseconds" and relative µs, or absolute epoch µs.
  bool epoch_us = false;
  for (size_t i = 0; i < s->size(); ++i) epoch_us = epoch_us || s->ts_ns[i] > 1000000000000000000;
  EXPECT_TRUE(epoch_us || s->base_time_ns != kNone);
}

TEST(ReaderCorpus, LargeIntegerTrace) {
  const fs::path p =
      kCorpus / "_from_pr324/large_integer_trace/rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz";
  if (!fs::exists(p)) GTEST_SKIP() << "corpus not present: " << p;
  auto s = LoadTrace(p.string());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->size(), 2u);
  EXPECT_EQ(s->counters().Get(Counter::integer_overflow), 0u);  // "Comms Id" is not used
}

}  // namespace
}  // namespace fastenough::trace
