// A rank's roofline rows (roofline/rank_roofline.h) on a small synthetic trace
// and on corpus traces, every figure computed by hand in the comments.
#include "fastenough/roofline/rank_roofline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>

#include "fastenough/pipeline/analyze.h"
#include "fastenough/report/report_json.h"
#include "fastenough/roofline/op_work.h"
#include "fastenough/trace/load_trace.h"

namespace fastenough::roofline {
namespace {

namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string Op(const std::string& name, int ts, int dur, int ext, const std::string& dims,
               const std::string& types) {
  return R"({"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":1,"tid":1,"ts":)" +
         std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"External id":)" +
         std::to_string(ext) + R"(,"Input Dims":)" + dims + R"(,"Input type":)" + types + "}},";
}
std::string Launch(int ts, int corr, int ext) {
  return R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
         std::to_string(ts) + R"(,"dur":2,"args":{"correlation":)" + std::to_string(corr) +
         R"(,"External id":)" + std::to_string(ext) + "}},";
}
// A kernel; ext < 0: no External id (linked through its launch's correlation only).
std::string Kernel(const std::string& name, int ts, double dur_us, int corr, int ext) {
  return R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":7,"ts":)" +
         std::to_string(ts) + R"(,"dur":)" + std::to_string(dur_us) +
         R"(,"args":{"device":0,"stream":7,"correlation":)" + std::to_string(corr) +
         (ext >= 0 ? R"(,"External id":)" + std::to_string(ext) : std::string()) + "}},";
}

// Two bf16 mm calls of one shape, one kernel each (10 us); a split-K fp32 mm with
// two kernels on one correlation (14 us + 9 us; the reduction has no External id);
// an op without a model (5 us); an op with shapes that launched nothing.
std::string SyntheticTrace(bool with_device) {
  const std::string bf = R"(["c10::BFloat16", "c10::BFloat16"])";
  std::string ev;
  ev += Op("aten::mm", 0, 50, 1, "[[256, 512], [512, 1024]]", bf);
  ev += Launch(10, 101, 1);
  ev += Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", 20, 10, 101, 1);
  ev += Op("aten::mm", 100, 50, 2, "[[256, 512], [512, 1024]]", bf);
  ev += Launch(110, 102, 2);
  ev += Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", 120, 10, 102, 2);
  ev += Op("aten::mm", 200, 50, 3, "[[64, 4096], [4096, 100]]", R"(["float", "float"])");
  ev += Launch(210, 103, 3);
  ev += Kernel("cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4", 220, 14, 103, 3);
  ev += Kernel("void splitKreduce_kernel<32, 16, int, float, float>", 240, 9, 103, -1);
  ev += Op("aten::_fe_custom_op", 300, 50, 4, "[[8, 8]]", R"(["float"])");
  ev += Launch(310, 104, 4);
  ev += Kernel("fe_custom_kernel", 320, 5, 104, 4);
  ev += Op("aten::add", 400, 50, 5, "[[8], [8], []]", R"(["float", "float", "Scalar"])");
  ev.pop_back();  // the last comma
  std::string props =
      with_device ? R"("deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB",
         "totalGlobalMem": 85198045184, "computeMajor": 8, "computeMinor": 0, "numSms": 108}],)"
                  : "";
  return "{" + props + R"("traceEvents": [)" + ev + "]}";
}

trace::EventStore Parse(const std::string& json) {
  StatusOr<trace::EventStore> s = trace::ParseTrace(json);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(s).value();
}

TEST(RankRoofline, SyntheticA100ByHand) {
  const trace::EventStore store = Parse(SyntheticTrace(true));
  const RankRoofline r = ComputeRankRoofline(store, 20);
  ASSERT_EQ(r.ops.size(), 2u);

  // 1. The split-K mm, heaviest (23 us): [64, 4096] x [4096, 100] fp32, both kernels
  //    (main 14 us + splitKreduce 9 us, linked through the launch's correlation).
  //    FLOPs 2*64*100*4096 = 52,428,800; bytes 4*(262,144 + 409,600 + 6,400) = 2,712,576;
  //    intensity 19.32805. Its kernel is CUTLASS's tensorop_s1688 GEMM (TF32): A100 SXM4
  //    80GB TF32 156e12 FLOP/s, 2.039e12 B/s; ridge 76.51 -> memory-bound.
  //    52,428,800 / 23e-6 s = 2.27951e12 FLOP/s = 1.461226 % of 156e12;
  //    2,712,576 / 23e-6 = 1.179381e11 B/s = 5.784113 % of 2.039e12;
  //    time at the roof max(52,428,800 / 156e12 = 336.08 ns, 2,712,576 / 2.039e12 = 1330.346 ns).
  const OpRoofline& k = r.ops[0];
  EXPECT_EQ(k.op, "aten::mm");
  EXPECT_EQ(k.input_dims, "[[64, 4096], [4096, 100]]");
  EXPECT_EQ(k.family, "matmul");
  EXPECT_EQ(k.calls, 1);
  EXPECT_EQ(k.device_ns, 23000);
  EXPECT_DOUBLE_EQ(k.flops, 52428800);
  EXPECT_DOUBLE_EQ(k.bytes, 2712576);
  EXPECT_NEAR(k.arithmetic_intensity, 19.328048, 1e-5);
  EXPECT_NEAR(k.achieved_flop_per_s, 2.2795130e12, 1e6);
  EXPECT_NEAR(k.achieved_bytes_per_s, 1.1793809e11, 1e4);
  EXPECT_NEAR(k.pct_of_compute_peak, 1.461226, 1e-5);
  EXPECT_NEAR(k.pct_of_memory_peak, 5.784113, 1e-5);
  EXPECT_EQ(k.bound, "memory");
  EXPECT_NEAR(k.time_at_roof_ns, 1330.346, 1e-3);
  EXPECT_EQ(k.peak.device, "NVIDIA A100 SXM4 80GB");
  EXPECT_EQ(k.peak.dtype, "tf32");
  EXPECT_DOUBLE_EQ(k.peak.flop_per_s, 156e12);
  EXPECT_DOUBLE_EQ(k.peak.bytes_per_s, 2.039e12);
  EXPECT_NE(k.peak.source.find("A100"), std::string::npos);
  ASSERT_FALSE(k.notes.empty());  // recorded as fp32, held to the TF32 peak
  EXPECT_NE(k.notes.back().find("tf32"), std::string::npos) << k.notes.back();

  // 2. The bf16 mm, two calls of 10 us: [256, 512] x [512, 1024].
  //    FLOPs 2*256*1024*512 = 268,435,456; bytes 2*(131,072 + 524,288 + 262,144) = 1,835,008;
  //    intensity 146.2857 < ridge 312 / 2.039 = 153.02 -> memory-bound.
  //    2 * 268,435,456 / 20e-6 s = 2.68435e13 FLOP/s = 8.603700 % of 312e12;
  //    2 * 1,835,008 / 20e-6 = 1.835008e11 B/s = 8.999549 % of 2.039e12;
  //    time at the roof 2 * max(860.370, 899.955) = 1799.910 ns.
  const OpRoofline& b = r.ops[1];
  EXPECT_EQ(b.calls, 2);
  EXPECT_EQ(b.device_ns, 20000);
  EXPECT_EQ(b.input_types, R"(["c10::BFloat16", "c10::BFloat16"])");
  EXPECT_DOUBLE_EQ(b.flops, 268435456);
  EXPECT_DOUBLE_EQ(b.bytes, 1835008);
  EXPECT_NEAR(b.arithmetic_intensity, 146.285714, 1e-5);
  EXPECT_NEAR(b.pct_of_compute_peak, 8.603700, 1e-5);
  EXPECT_NEAR(b.pct_of_memory_peak, 8.999549, 1e-5);
  EXPECT_EQ(b.bound, "memory");
  EXPECT_NEAR(b.time_at_roof_ns, 1799.910, 1e-3);
  EXPECT_EQ(b.peak.dtype, "bf16");
  EXPECT_DOUBLE_EQ(b.peak.flop_per_s, 312e12);

  // 3. The op without a model: counted and named, not guessed. aten::add launched nothing.
  EXPECT_TRUE(IsNoModel(ModelOp("aten::_fe_custom_op", "[[8, 8]]", R"(["float"])").status()));
  EXPECT_EQ(r.unmodelled.count, 1);
  EXPECT_EQ(r.unmodelled.device_ns, 5000);
  ASSERT_EQ(r.unmodelled.ops.size(), 1u);
  EXPECT_EQ(r.unmodelled.ops[0], "aten::_fe_custom_op");

  // top_n bounds the rows: the heaviest one only.
  const RankRoofline one = ComputeRankRoofline(store, 1);
  ASSERT_EQ(one.ops.size(), 1u);
  EXPECT_EQ(one.ops[0].device_ns, 23000);
  EXPECT_EQ(one.unmodelled.count, 0);
  // Rows are the heaviest groups with a model: two rows, and the op without a model
  // (lighter than both) is not among the hot ones.
  const RankRoofline two = ComputeRankRoofline(store, 2);
  ASSERT_EQ(two.ops.size(), 2u);
  EXPECT_EQ(two.unmodelled.count, 0);
}

TEST(RankRoofline, KernelsOnTwoStreamsCountTheirUnion) {
  // One bf16 mm [256, 512] x [512, 1024] whose two kernels (one launch each) ran
  // side by side: stream 7 at [20, 30) us, stream 8 at [24, 34) us. The op's device
  // time is their union, 14 us (not 20). FLOPs 268,435,456 / 14e-6 s = 1.917396e13
  // FLOP/s = 6.145500 % of 312e12; bytes 1,835,008 / 14e-6 = 1.310720e11 B/s =
  // 6.428249 % of 2.039e12: memory-bound, 899.955 ns at the roof.
  const std::string bf = R"(["c10::BFloat16", "c10::BFloat16"])";
  std::string ev;
  ev += Op("aten::mm", 0, 50, 1, "[[256, 512], [512, 1024]]", bf);
  ev += Launch(10, 101, 1);
  ev += Launch(12, 102, 1);
  ev += Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", 20, 10, 101, 1);
  std::string second = Kernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", 24, 10, 102, 1);
  second.replace(second.find(R"("stream":7)"), 10, R"("stream":8)");
  second.replace(second.find(R"("tid":7)"), 7, R"("tid":8)");
  ev += second;
  ev.pop_back();
  const std::string json = R"({"deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB",
      "totalGlobalMem": 85198045184, "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
      "traceEvents": [)" + ev + "]}";
  const RankRoofline r = ComputeRankRoofline(Parse(json), 20);
  ASSERT_EQ(r.ops.size(), 1u);
  const OpRoofline& op = r.ops[0];
  EXPECT_EQ(op.calls, 1);
  EXPECT_EQ(op.device_ns, 14000);
  EXPECT_NEAR(op.pct_of_compute_peak, 6.145500, 1e-5);
  EXPECT_NEAR(op.pct_of_memory_peak, 6.428249, 1e-5);
  EXPECT_EQ(op.bound, "memory");
  EXPECT_NEAR(op.time_at_roof_ns, 899.955, 1e-3);
}

TEST(RankRoofline, NoDevicePropertiesLeavesThePeaksOut) {
  const trace::EventStore store = Parse(SyntheticTrace(false));
  const RankRoofline r = ComputeRankRoofline(store, 20);
  ASSERT_EQ(r.ops.size(), 2u);
  const OpRoofline& b = r.ops[1];
  EXPECT_DOUBLE_EQ(b.flops, 268435456);  // the work and the achieved rates stay
  EXPECT_NEAR(b.achieved_flop_per_s, 2.68435456e13, 1e3);
  EXPECT_TRUE(std::isnan(b.pct_of_compute_peak));
  EXPECT_TRUE(std::isnan(b.pct_of_memory_peak));
  EXPECT_TRUE(std::isnan(b.time_at_roof_ns));
  EXPECT_EQ(b.bound, "");
  EXPECT_EQ(b.peak.device, "");
  EXPECT_TRUE(std::isnan(b.peak.flop_per_s));
  ASSERT_FALSE(b.notes.empty());
  EXPECT_NE(b.notes.back().find("deviceProperties"), std::string::npos);
}

TEST(RankRoofline, DeviceNamedWhereTheTraceHasNoProperties) {
  // --device "H100 SXM" on the trace without deviceProperties: the bf16 mm (two calls,
  // 20 us, 268,435,456 FLOPs and 1,835,008 bytes each) against the H100 SXM5's
  // 989.5e12 BF16 and 3.35e12 B/s: 2 * 268,435,456 / 20e-6 = 2.68435456e13 FLOP/s =
  // 2.712839 %; 2 * 1,835,008 / 20e-6 = 1.835008e11 B/s = 5.477636 %.
  StatusOr<PeakSettings> settings = MakePeakSettings("H100 SXM", "");
  ASSERT_TRUE(settings.ok()) << settings.status().message();
  const trace::EventStore store = Parse(SyntheticTrace(false));
  const RankRoofline r = ComputeRankRoofline(store, 20, *settings);
  ASSERT_EQ(r.ops.size(), 2u);
  const OpRoofline& b = r.ops[1];
  EXPECT_EQ(b.peak.device, "NVIDIA H100 SXM5 80GB");
  EXPECT_NEAR(b.pct_of_compute_peak, 2.712839, 1e-5);
  EXPECT_NEAR(b.pct_of_memory_peak, 5.477636, 1e-5);
  EXPECT_NE(b.peak.source.find("--device H100 SXM"), std::string::npos) << b.peak.source;
  // The trace's own deviceProperties win over --device: the A100 stays.
  const trace::EventStore a100 = Parse(SyntheticTrace(true));
  const RankRoofline ra = ComputeRankRoofline(a100, 20, *settings);
  ASSERT_EQ(ra.ops.size(), 2u);
  EXPECT_EQ(ra.ops[1].peak.device, "NVIDIA A100 SXM4 80GB");
  EXPECT_NEAR(ra.ops[1].pct_of_compute_peak, 8.603700, 1e-5);
}

TEST(RankRoofline, PeaksFileOverridesAnEntry) {
  // bf16 held to 100 TFLOP/s: 2.68435456e13 / 100e12 = 26.843546 %; the memory
  // figure is the table's (8.999549 % of 2.039e12).
  StatusOr<PeakSettings> settings = MakePeakSettings(
      "", R"({"devices": [{"name": "NVIDIA A100-SXM4-80GB", "tflops": {"bf16": 100},)"
          R"( "source": "our measurement"}]})");
  ASSERT_TRUE(settings.ok()) << settings.status().message();
  const trace::EventStore store = Parse(SyntheticTrace(true));
  const RankRoofline r = ComputeRankRoofline(store, 20, *settings);
  ASSERT_EQ(r.ops.size(), 2u);
  EXPECT_NEAR(r.ops[1].pct_of_compute_peak, 26.843546, 1e-5);
  EXPECT_NEAR(r.ops[1].pct_of_memory_peak, 8.999549, 1e-5);
  EXPECT_NE(r.ops[1].peak.source.find("our measurement"), std::string::npos);
  // A device the file adds can be named with --device.
  StatusOr<PeakSettings> added = MakePeakSettings(
      "Ascend910B3", R"({"devices": [{"name": "Ascend910B3", "tflops": {"bf16": 313},)"
                     R"( "memory_tb_per_s": 1.6}]})");
  ASSERT_TRUE(added.ok()) << added.status().message();
  EXPECT_EQ(added->device->peaks.name, "Ascend910B3");
}

TEST(RankRoofline, BadDeviceOrPeaksAreRefused) {
  StatusOr<PeakSettings> unknown = MakePeakSettings("H1000", "");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  // The close names: the H100s.
  EXPECT_NE(unknown.status().message().find("\"NVIDIA H100 SXM5 80GB\""), std::string::npos)
      << unknown.status().message();
  EXPECT_EQ(unknown.status().message().find("MI300X"), std::string::npos);
  EXPECT_EQ(MakePeakSettings("mi30x", "").status().message().find("B200"), std::string::npos);
  EXPECT_NE(MakePeakSettings("mi30x", "").status().message().find("MI300X"), std::string::npos);
  // Nothing close: no list, the pointer to the table stays.
  const std::string none = MakePeakSettings("zzzzzzzz", "").status().message();
  EXPECT_EQ(none.find("close names"), std::string::npos);
  EXPECT_NE(none.find("docs/roofline.md"), std::string::npos);
  EXPECT_EQ(MakePeakSettings("", "[1, 2]").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MakePeakSettings("", "{\"devices\": [{\"name\": \"x\"}]}").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(MakePeakSettings("", "").ok());
}

OpRoofline RowOf(const std::string& op, const std::string& dims, int64_t ns, const char* bound,
                 double pct_compute, double pct_memory) {
  OpRoofline r;
  r.op = op;
  r.input_dims = dims;
  r.input_types = R"(["c10::BFloat16", "c10::BFloat16"])";
  r.device_ns = ns;
  r.bound = bound;
  r.pct_of_compute_peak = pct_compute;
  r.pct_of_memory_peak = pct_memory;
  return r;
}

TEST(RankRoofline, WorstRankPerOpByHand) {
  // mm [[256,512],[512,1024]] on ranks 0, 1, 2: memory-bound at 9.0 %, 4.5 %, 12.0 %
  // of the memory roof (their compute % 8.6, 4.3, 11.5 are not the binding roof):
  // worst rank 1 (4.5 %), best rank 2 (12.0 %), 3 ranks, 10 + 20 + 7.5 = 37.5 us.
  // addmm on ranks 0 and 2, compute-bound at 60 % and 60 %: a tie, worst = best = the lower
  // rank 0; 2 ranks, 5 + 5 us. Rank 1 has two addmm rows (Concrete Inputs apart) with no
  // bound: not counted. softmax only on rank 2: one rank, no entry.
  // Rank 2 has two mm rows of the same key: its lower % (12.0 vs 30.0) counts, and both
  // rows' time (5 + 2.5 us).
  const std::string mm = "[[256, 512], [512, 1024]]";
  std::vector<RankRoofline> ranks(3);
  ranks[0].rank = 0;
  ranks[0].ops = {RowOf("aten::mm", mm, 10000, "memory", 8.6, 9.0),
                  RowOf("aten::addmm", "[[8], [8, 8], [8, 8]]", 5000, "compute", 60.0, 1.0)};
  ranks[1].rank = 1;
  ranks[1].ops = {RowOf("aten::mm", mm, 20000, "memory", 4.3, 4.5),
                  RowOf("aten::addmm", "[[8], [8, 8], [8, 8]]", 5000, "", kNaN, kNaN)};
  ranks[2].rank = 2;
  ranks[2].ops = {RowOf("aten::mm", mm, 5000, "memory", 11.5, 30.0),
                  RowOf("aten::mm", mm, 2500, "memory", 11.5, 12.0),
                  RowOf("aten::addmm", "[[8], [8, 8], [8, 8]]", 5000, "compute", 60.0, 1.0),
                  RowOf("aten::_softmax", "[[8, 8], [], []]", 90000, "memory", 1.0, 50.0)};
  const std::vector<OpWorstRank> w = WorstRankPerOp(ranks, 20);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].op, "aten::mm");
  EXPECT_EQ(w[0].input_dims, mm);
  EXPECT_EQ(w[0].ranks, 3);
  EXPECT_EQ(w[0].device_ns, 37500);
  EXPECT_EQ(w[0].worst_rank, 1);
  EXPECT_DOUBLE_EQ(w[0].worst_pct_of_roof, 4.5);
  EXPECT_EQ(w[0].worst_bound, "memory");
  EXPECT_EQ(w[0].best_rank, 2);
  EXPECT_DOUBLE_EQ(w[0].best_pct_of_roof, 12.0);
  EXPECT_EQ(w[1].op, "aten::addmm");
  EXPECT_EQ(w[1].ranks, 2);
  EXPECT_EQ(w[1].device_ns, 10000);
  EXPECT_EQ(w[1].worst_rank, 0);
  EXPECT_EQ(w[1].best_rank, 0);
  EXPECT_DOUBLE_EQ(w[1].worst_pct_of_roof, 60.0);
  EXPECT_EQ(w[1].worst_bound, "compute");
  // top_n bounds the list; one rank alone has none.
  EXPECT_EQ(WorstRankPerOp(ranks, 1).size(), 1u);
  EXPECT_TRUE(WorstRankPerOp({ranks[2]}, 20).empty());
}

TEST(RankRoofline, AHostCopyIsNoted) {
  // aten::copy_ of [1024, 1024] fp32 to the device: one HtoD memcpy of 100 us.
  // bytes 2 * 4 * 1,048,576 = 8,388,608 (read + write); 8,388,608 / 100e-6 s = 8.388608e10 B/s
  // = 4.114079 % of 2.039e12, and a note: the copy runs at the link's bandwidth.
  std::string ev = Op("aten::copy_", 0, 200, 1, "[[1024, 1024], [1024, 1024], []]",
                      R"(["float", "float", "Scalar"])");
  ev += Launch(10, 101, 1);
  ev += R"x({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,)x"
        R"("tid":7,"ts":20,"dur":100,"args":{"device":0,"stream":7,"correlation":101,)"
        R"("External id":1,"bytes":4194304}})";
  const trace::EventStore store = Parse(
      R"({"deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": )"
      R"(85198045184, "computeMajor": 8, "computeMinor": 0, "numSms": 108}], "traceEvents": [)" +
      ev + "]}");
  const RankRoofline r = ComputeRankRoofline(store, 20);
  ASSERT_EQ(r.ops.size(), 1u);
  EXPECT_EQ(r.ops[0].device_ns, 100000);
  EXPECT_DOUBLE_EQ(r.ops[0].bytes, 8388608);
  EXPECT_NEAR(r.ops[0].pct_of_memory_peak, 4.114079, 1e-5);
  bool noted = false;
  for (const auto& n : r.ops[0].notes) noted = noted || n.find("host <-> device") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(RankRoofline, CpuTraceHasNoRows) {
  const trace::EventStore store = Parse(
      R"({"traceEvents": [{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,)"
      R"("dur":50,"args":{"Input Dims":[[2, 3], [3, 4]],"Input type":["float", "float"]}}]})");
  const RankRoofline r = ComputeRankRoofline(store, 20);
  EXPECT_TRUE(r.ops.empty());
  EXPECT_EQ(r.unmodelled.count, 0);
}

TEST(RankRoofline, InTheReportJson) {
  trace::EventStore store = Parse(SyntheticTrace(true));
  const report::Report rep = pipeline::BuildReport({&store}, pipeline::AnalyzeOptions{});
  ASSERT_EQ(rep.roofline.size(), 1u);
  EXPECT_EQ(rep.roofline[0].ops.size(), 2u);
  const std::string json = report::ReportToJson(rep);
  EXPECT_NE(json.find(R"("roofline")"), std::string::npos);
  EXPECT_NE(json.find(R"("per_rank")"), std::string::npos);
  EXPECT_NE(json.find(R"("pct_of_compute_peak")"), std::string::npos);
  EXPECT_NE(json.find(R"("unmodelled")"), std::string::npos);
}

const fs::path kCorpus = [] {
  const char* env = std::getenv("FASTENOUGH_CORPUS");
  return env != nullptr && *env != '\0' ? fs::path(env) : fs::path(FASTENOUGH_CORPUS);
}();

const OpRoofline* FindRow(const RankRoofline& r, std::string_view op, std::string_view dims) {
  for (const auto& row : r.ops) {
    if (row.op == op && row.input_dims == dims) return &row;
  }
  return nullptr;
}

// The rank's roofline as `fastenough analyze` computes it (kernels linked to the op
// enclosing their launch, through the pipeline's call tree).
RankRoofline Analyzed(const fs::path& p) {
  pipeline::AnalyzeOptions o;
  o.top_n = 1000;
  StatusOr<report::Report> r = pipeline::AnalyzeTraces({p.string()}, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok() || r->roofline.empty()) return {};
  return r->roofline[0];
}

TEST(RankRooflineCorpus, A100ThreeOpsByHand) {
  const fs::path p = kCorpus / "negative_queue_length_values_check/rank0.json.gz";
  if (!fs::exists(p)) GTEST_SKIP() << "corpus not present: " << p;
  const RankRoofline r = Analyzed(p);
  // deviceProperties "NVIDIA A100-SXM4-80GB": FP32 19.5e12, TF32 156e12, 2.039e12 B/s.

  // 1. aten::add [[4096, 2862], [4096, 2862], []] fp32: 5 calls, 380 us (76 us each).
  //    bytes 3*4*11,722,752 = 140,673,024 per call; 5 * 140,673,024 / 380e-6 s = 1.85096e12 B/s
  //    = 90.777874 % of 2.039e12; FLOPs 11,722,752: 0.791009 % of the FP32 vector 19.5e12;
  //    intensity 1/12: memory-bound; time at the roof 703,365,120 / 2.039e12 = 344,955.92 ns.
  const OpRoofline* add = FindRow(r, "aten::add", "[[4096, 2862], [4096, 2862], []]");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->calls, 5);
  EXPECT_EQ(add->device_ns, 380000);
  EXPECT_DOUBLE_EQ(add->bytes, 140673024);
  EXPECT_NEAR(add->pct_of_memory_peak, 90.777874, 1e-5);
  EXPECT_NEAR(add->pct_of_compute_peak, 0.791009, 1e-5);
  EXPECT_EQ(add->bound, "memory");
  EXPECT_NEAR(add->time_at_roof_ns, 344955.92, 1e-2);
  EXPECT_EQ(add->peak.dtype, "fp32");

  // 2. aten::addmm [[64], [4096, 2798], [2798, 64], [], []] fp32 on a TF32 tensor-op GEMM
  //    (cutlass_80_tensorop_s1688gemm): 5 calls, 468 us (memset + GEMM each).
  //    FLOPs 2*4096*64*2798 + 4096*64 = 1,467,219,968; bytes 4*(64 + 11,460,608 + 179,072 +
  //    262,144) = 47,607,552; 5 * FLOPs / 468e-6 s = 1.567543e13 = 10.048351 % of 156e12;
  //    5 * bytes / 468e-6 = 5.08628e11 = 24.944958 % of 2.039e12; intensity 30.819 < ridge
  //    76.51: memory-bound; time at the roof 5 * 47,607,552 / 2.039e12 = 116,742.40 ns.
  const OpRoofline* addmm = FindRow(r, "aten::addmm", "[[64], [4096, 2798], [2798, 64], [], []]");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->calls, 5);
  EXPECT_EQ(addmm->device_ns, 468000);
  EXPECT_DOUBLE_EQ(addmm->flops, 1467219968.0);
  EXPECT_DOUBLE_EQ(addmm->bytes, 47607552);
  EXPECT_EQ(addmm->peak.dtype, "tf32");
  EXPECT_NEAR(addmm->pct_of_compute_peak, 10.048351, 1e-5);
  EXPECT_NEAR(addmm->pct_of_memory_peak, 24.944958, 1e-5);
  EXPECT_EQ(addmm->bound, "memory");
  EXPECT_NEAR(addmm->time_at_roof_ns, 116742.40, 1e-2);

  // 3. aten::mm [[4096, 64], [64, 2798]] fp32, its kernel on the FP32 path: 5 calls, 501 us.
  //    FLOPs 2*4096*2798*64 = 1,466,957,824; bytes 4*(262,144 + 179,072 + 11,460,608) =
  //    47,607,296; 5 * FLOPs / 501e-6 s = 1.464030e13 = 75.078449 % of 19.5e12; 4.751227e11
  //    B/s = 23.301752 % of 2.039e12; intensity 30.81 >= ridge 19.5 / 2.039 = 9.56:
  //    compute-bound; time at the roof 5 * 1,466,957,824 / 19.5e12 = 376,143.03 ns.
  const OpRoofline* mm = FindRow(r, "aten::mm", "[[4096, 64], [64, 2798]]");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->calls, 5);
  EXPECT_EQ(mm->device_ns, 501000);
  EXPECT_DOUBLE_EQ(mm->flops, 1466957824);
  EXPECT_DOUBLE_EQ(mm->bytes, 47607296);
  EXPECT_EQ(mm->peak.dtype, "fp32");
  EXPECT_NEAR(mm->pct_of_compute_peak, 75.078449, 1e-5);
  EXPECT_NEAR(mm->pct_of_memory_peak, 23.301752, 1e-5);
  EXPECT_EQ(mm->bound, "compute");
  EXPECT_NEAR(mm->time_at_roof_ns, 376143.03, 1e-2);
  EXPECT_EQ(mm->peak.device, "NVIDIA A100 SXM4 80GB");
}

TEST(RankRooflineCorpus, MI250ThreeOpsByHand) {
  const fs::path p = kCorpus / "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz";
  if (!fs::exists(p)) GTEST_SKIP() << "corpus not present: " << p;
  const RankRoofline r = Analyzed(p);
  // One MI250 GCD: FP32 matrix 45.25e12, FP32 vector 22.65e12, 1.6384e12 B/s.
  // 1. aten::addmm [[128], [5, 128], [128, 128]]: bias kernel 6.88 us + GEMM 17.6 us, one call.
  //    FLOPs 164,480, bytes 71,168: 0.0148485 % of 45.25e12, 0.1774408 % of 1.6384e12;
  //    memory-bound; time at the roof 71,168 / 1.6384e12 = 43.4375 ns.
  const OpRoofline* addmm = FindRow(r, "aten::addmm", "[[128], [5, 128], [128, 128], [], []]");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->calls, 1);
  EXPECT_EQ(addmm->device_ns, 24480);
  EXPECT_NEAR(addmm->pct_of_compute_peak, 0.0148485, 1e-6);
  EXPECT_NEAR(addmm->pct_of_memory_peak, 0.1774408, 1e-6);
  EXPECT_EQ(addmm->bound, "memory");
  EXPECT_NEAR(addmm->time_at_roof_ns, 43.4375, 1e-6);
  EXPECT_EQ(addmm->peak.dtype, "fp32_matrix");
  // 2. aten::mm [[128, 5], [5, 128]]: 12.64 us; FLOPs 163,840, bytes 70,656: 0.0286454 %,
  //    0.3411788 %; time at the roof 70,656 / 1.6384e12 = 43.125 ns.
  const OpRoofline* mm = FindRow(r, "aten::mm", "[[128, 5], [5, 128]]");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->device_ns, 12640);
  EXPECT_NEAR(mm->pct_of_compute_peak, 0.0286454, 1e-6);
  EXPECT_NEAR(mm->pct_of_memory_peak, 0.3411788, 1e-6);
  EXPECT_NEAR(mm->time_at_roof_ns, 43.125, 1e-6);
  // 3. aten::add_ [[128, 128], [128, 128], []]: 4.16 us; bytes 196,608: 2.8846154 % of
  //    1.6384e12; FLOPs 16,384: 0.0173884 % of the vector 22.65e12; 120 ns at the roof.
  const OpRoofline* add = FindRow(r, "aten::add_", "[[128, 128], [128, 128], []]");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->device_ns, 4160);
  EXPECT_NEAR(add->pct_of_memory_peak, 2.8846154, 1e-6);
  EXPECT_NEAR(add->pct_of_compute_peak, 0.0173884, 1e-6);
  EXPECT_EQ(add->peak.dtype, "fp32");
  EXPECT_NEAR(add->time_at_roof_ns, 120, 1e-6);
  EXPECT_EQ(add->peak.device, "AMD Instinct MI250 (one GCD)");
  // Ops without a model are counted and named.
  EXPECT_GT(r.unmodelled.count, 0);
  EXPECT_FALSE(r.unmodelled.ops.empty());
}

}  // namespace
}  // namespace fastenough::roofline
