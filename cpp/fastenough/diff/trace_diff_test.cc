#include "fastenough/diff/trace_diff.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fastenough/diff/trace_diff_json.h"
#include "fastenough/findings/test_trace_builder.h"
#include "fastenough/trace/load_trace.h"

namespace fastenough::diff {
namespace {

using findings::testing::TraceBuilder;

constexpr const char* kGemm = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)";
constexpr const char* kMmDims = "[[4, 8], [8, 16]]";

// One step at `t` (µs): aten::mm -> gemm (gemm_us), aten::add -> add_kernel
// (add_us) and, when with_relu, aten::relu -> relu_kernel.
void AddStep(TraceBuilder& tb, int n, double t, double gemm_us, double add_us, bool with_relu) {
  tb.Step(n, t, 100);
  tb.Op("aten::mm", t + 1, 20, kMmDims);
  tb.Kernel(t + 2, 3, kGemm, t + 30, gemm_us);
  tb.Op("aten::add", t + 25, 5);
  tb.Kernel(t + 26, 2, "add_kernel", t + 45, add_us);
  if (with_relu) {
    tb.Op("aten::relu", t + 35, 5);
    tb.Kernel(t + 36, 2, "relu_kernel", t + 60, 3);
  }
}

SideAggregate Side(TraceBuilder& tb) {
  SideAggregate s;
  AddTrace(tb.Finish(), s);
  return s;
}

// A: three steps (the first is warm-up and carries an extra kernel).
// B: the relu is gone and the gemm takes twice as long; add_kernel moved by
// 0.1 µs, below the 1 µs noise bound.
TEST(TraceDiff, RemovedKernelAndTwiceSlowerKernelPerSteadyStep) {
  TraceBuilder a;
  AddStep(a, 1, 0, 10, 4, true);
  a.Kernel(80, 2, "warmup_kernel", 85, 50);
  AddStep(a, 2, 100, 10, 4, true);
  AddStep(a, 3, 200, 10, 4, true);
  TraceBuilder b;
  for (int n = 1; n <= 4; ++n) AddStep(b, n, 100.0 * (n - 1), 20, 4.1, false);

  TraceDiff d = DiffSides(Side(a), Side(b));
  EXPECT_TRUE(d.per_step);
  EXPECT_EQ(d.steady_steps_a, 2);
  EXPECT_EQ(d.steady_steps_b, 3);
  ASSERT_EQ(d.rows.size(), 3u);

  EXPECT_EQ(d.rows[0].status, RowStatus::kChanged);
  EXPECT_EQ(d.rows[0].key.kind, RowKind::kKernel);
  EXPECT_EQ(d.rows[0].key.name, kGemm);
  EXPECT_DOUBLE_EQ(d.rows[0].a.calls, 1);
  EXPECT_DOUBLE_EQ(d.rows[0].b.calls, 1);
  EXPECT_DOUBLE_EQ(d.rows[0].a.time_ns, 10000);
  EXPECT_DOUBLE_EQ(d.rows[0].b.time_ns, 20000);
  EXPECT_FALSE(d.rows[0].calls_changed);
  EXPECT_TRUE(d.rows[0].time_changed);

  EXPECT_EQ(d.rows[1].status, RowStatus::kRemoved);
  EXPECT_TRUE(d.rows[1].entirely);
  EXPECT_EQ(d.rows[1].key.kind, RowKind::kCpuOp);
  EXPECT_EQ(d.rows[1].key.name, "aten::relu");
  EXPECT_DOUBLE_EQ(d.rows[1].a.time_ns, 5000);
  EXPECT_DOUBLE_EQ(d.rows[1].delta_time_ns(), -5000);

  EXPECT_EQ(d.rows[2].status, RowStatus::kRemoved);
  EXPECT_EQ(d.rows[2].key.kind, RowKind::kKernel);
  EXPECT_EQ(d.rows[2].key.name, "relu_kernel");
  EXPECT_DOUBLE_EQ(d.rows[2].a.calls, 1);
  EXPECT_DOUBLE_EQ(d.rows[2].delta_time_ns(), -3000);

  // aten::mm (with its shapes), aten::add, add_kernel.
  EXPECT_EQ(d.unchanged_rows, 3);
  EXPECT_DOUBLE_EQ(d.unchanged_a_ns, 20000 + 5000 + 4000);
  EXPECT_DOUBLE_EQ(d.unchanged_b_ns, 20000 + 5000 + 4100);
  EXPECT_DOUBLE_EQ(d.totals[RowKind::kKernel].a_ns, 17000);
  EXPECT_DOUBLE_EQ(d.totals[RowKind::kKernel].b_ns, 24100);
}

TEST(TraceDiff, WithoutStepsComparesTotalsAndCountsCalls) {
  TraceBuilder a;
  a.Op("aten::item", 0, 10);
  a.Op("aten::item", 20, 10);
  a.Op("aten::mm", 40, 10, kMmDims);
  TraceBuilder b;
  b.Op("aten::item", 0, 10);
  b.Op("aten::mm", 40, 10, "[[8, 8], [8, 16]]");  // other shapes: the same op, changed
  TraceDiff d = DiffSides(Side(a), Side(b));
  EXPECT_FALSE(d.per_step);
  EXPECT_FALSE(d.per_item);
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.rows[0].key.name, "aten::item");
  EXPECT_EQ(d.rows[0].status, RowStatus::kChanged);
  EXPECT_TRUE(d.rows[0].calls_changed);
  EXPECT_FALSE(d.rows[0].shapes_changed);
  EXPECT_DOUBLE_EQ(d.rows[0].delta_calls(), -1);
  // Same calls, same time, other shapes: changed by its shapes alone.
  EXPECT_EQ(d.rows[1].key.name, "aten::mm");
  EXPECT_EQ(d.rows[1].status, RowStatus::kChanged);
  EXPECT_TRUE(d.rows[1].shapes_changed);
  EXPECT_FALSE(d.rows[1].calls_changed);
  EXPECT_FALSE(d.rows[1].time_changed);
  EXPECT_EQ(d.rows[1].key.input_dims, "");
  EXPECT_EQ(d.rows[1].dims_a, std::vector<std::string>{kMmDims});
  EXPECT_EQ(d.rows[1].dims_b, std::vector<std::string>{"[[8, 8], [8, 16]]"});
  EXPECT_EQ(d.unchanged_rows, 0);
  EXPECT_EQ(d.totals[RowKind::kCpuOp].rows_a, 2);
  EXPECT_EQ(d.totals[RowKind::kCpuOp].rows_b, 2);
}

// Issue 24: B runs batches of 8 instead of 4. Every op that sees the batch has
// other shapes, and the per-step times double with the batch; the host syncs
// (aten::item, aten::_local_scalar_dense) and a clone are gone entirely.
void BatchStep(TraceBuilder& tb, int n, double t, int batch, bool with_syncs) {
  const double k = batch / 4.0;  // time scales with the batch
  const std::string x = "[[" + std::to_string(batch) + ", 8], [8, 16]]";
  tb.Step(n, t, 200);
  tb.Op("aten::mm", t + 1, 20 * k, x);
  tb.Kernel(t + 2, 3, kGemm, t + 30, 10 * k);
  tb.Op("aten::linear", t + 40, 4, "[[16, 16]]");  // the weights only: no batch in it
  tb.Op("aten::add", t + 50, 5 * k, "[[" + std::to_string(batch) + ", 16], []]");
  if (with_syncs) {
    tb.Op("aten::item", t + 60, 30, "[[]]");
    tb.Op("aten::_local_scalar_dense", t + 61, 28, "[[]]");
    tb.Op("aten::clone", t + 100, 6, "[[4, 16]]");
  }
}

TEST(TraceDiff, BatchChangeShowsShapeChangesAndWhatIsGoneEntirely) {
  TraceBuilder a, b;
  for (int n = 1; n <= 3; ++n) BatchStep(a, n, 300.0 * (n - 1), 4, true);
  for (int n = 1; n <= 3; ++n) BatchStep(b, n, 300.0 * (n - 1), 8, false);
  TraceDiff d = DiffSides(Side(a), Side(b), {0.05, 1000.0, 4, 8});
  EXPECT_TRUE(d.per_step);
  EXPECT_TRUE(d.per_item);
  // Largest change per item first: item 30 µs / 4 items = 7.5 µs, then
  // _local_scalar_dense 7 µs, clone 1.5 µs; aten::linear's 4 µs per step
  // (no batch in it) is 1 µs per item on A and 0.5 on B. mm, add and the gemm
  // cost the same per item: mm and add changed by their shapes only, the gemm
  // (no shapes) is unchanged.
  ASSERT_EQ(d.rows.size(), 6u);
  EXPECT_EQ(d.rows[0].key.name, "aten::item");
  EXPECT_EQ(d.rows[0].status, RowStatus::kRemoved);
  EXPECT_TRUE(d.rows[0].entirely);
  EXPECT_DOUBLE_EQ(d.rows[0].a.time_ns, 30000);
  EXPECT_DOUBLE_EQ(d.rows[0].a.time_per_item_ns, 7500);
  EXPECT_DOUBLE_EQ(d.rows[0].delta_time_per_item_ns(), -7500);
  EXPECT_EQ(d.rows[1].key.name, "aten::_local_scalar_dense");
  EXPECT_TRUE(d.rows[1].entirely);
  EXPECT_EQ(d.rows[2].key.name, "aten::clone");
  EXPECT_TRUE(d.rows[2].entirely);
  EXPECT_EQ(d.rows[2].dims_a, std::vector<std::string>{"[[4, 16]]"});
  EXPECT_EQ(d.rows[3].key.name, "aten::linear");
  EXPECT_TRUE(d.rows[3].time_changed);
  EXPECT_FALSE(d.rows[3].shapes_changed);
  EXPECT_DOUBLE_EQ(d.rows[3].delta_time_ns(), 0);
  EXPECT_DOUBLE_EQ(d.rows[3].delta_time_per_item_ns(), -500);
  for (size_t i = 4; i < 6; ++i) {
    SCOPED_TRACE(d.rows[i].key.name);
    EXPECT_EQ(d.rows[i].status, RowStatus::kChanged);
    EXPECT_TRUE(d.rows[i].shapes_changed);
    EXPECT_FALSE(d.rows[i].time_changed);  // twice per step, the same per item
    EXPECT_FALSE(d.rows[i].entirely);
    EXPECT_DOUBLE_EQ(d.rows[i].delta_time_per_item_ns(), 0);
  }
  // Equal |delta| per item (0): by key, aten::add before aten::mm.
  EXPECT_EQ(d.rows[4].key.name, "aten::add");
  EXPECT_EQ(d.rows[5].key.name, "aten::mm");
  EXPECT_EQ(d.rows[5].dims_a, std::vector<std::string>{"[[4, 8], [8, 16]]"});
  EXPECT_EQ(d.rows[5].dims_b, std::vector<std::string>{"[[8, 8], [8, 16]]"});
  EXPECT_DOUBLE_EQ(d.rows[5].a.time_ns, 20000);
  EXPECT_DOUBLE_EQ(d.rows[5].b.time_ns, 40000);
  EXPECT_EQ(d.unchanged_rows, 1);  // the gemm kernel
  // Per step the kernels doubled; per item they did not move.
  EXPECT_DOUBLE_EQ(d.totals[RowKind::kKernel].a_ns, 10000);
  EXPECT_DOUBLE_EQ(d.totals[RowKind::kKernel].b_ns, 20000);
  EXPECT_DOUBLE_EQ(d.totals[RowKind::kKernel].a_per_item_ns, 2500);
  EXPECT_DOUBLE_EQ(d.totals[RowKind::kKernel].b_per_item_ns, 2500);

  // Without items per step the same traces are judged per step: the gemm
  // doubled (+10 µs) and aten::linear did not move.
  TraceDiff per_step = DiffSides(Side(a), Side(b));
  EXPECT_FALSE(per_step.per_item);
  ASSERT_EQ(per_step.rows.size(), 6u);
  EXPECT_EQ(per_step.rows[0].key.name, "aten::item");  // -30 µs
  EXPECT_EQ(per_step.rows[3].key.name, kGemm);
  EXPECT_TRUE(per_step.rows[3].time_changed);
  EXPECT_EQ(per_step.unchanged_rows, 1);  // aten::linear
  const std::string json = TraceDiffToJson(d);
  EXPECT_NE(json.find("\"per_item\":{\"items_per_step_a\":4,\"items_per_step_b\":8}"),
            std::string::npos) << json;
  EXPECT_NE(json.find("\"input_dims_a\":[\"[[4, 8], [8, 16]]\"],\"input_dims_b\":"
                      "[\"[[8, 8], [8, 16]]\"],\"shapes_changed\":true,\"entirely\":false"),
            std::string::npos) << json;
}

TEST(TraceDiff, AnOpGoneEntirelyIsOneRowWhateverItsShapes) {
  TraceBuilder a, b;
  a.Op("aten::sum", 0, 10, "[[3], []]");
  a.Op("aten::sum", 20, 6, "[[6], []]");
  a.Op("aten::sum", 40, 4, "[[6], []]");
  b.Op("aten::mean", 0, 5, "[[3], []]");
  TraceDiff d = DiffSides(Side(a), Side(b));
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.rows[0].key.name, "aten::sum");
  EXPECT_EQ(d.rows[0].status, RowStatus::kRemoved);
  EXPECT_TRUE(d.rows[0].entirely);
  EXPECT_EQ(d.rows[0].key.input_dims, "");  // two shapes: none in the key
  EXPECT_EQ(d.rows[0].dims_a, (std::vector<std::string>{"[[3], []]", "[[6], []]"}));
  EXPECT_DOUBLE_EQ(d.rows[0].a.calls, 3);
  EXPECT_DOUBLE_EQ(d.rows[0].a.time_ns, 20000);
  EXPECT_EQ(d.rows[1].key.name, "aten::mean");
  EXPECT_EQ(d.rows[1].status, RowStatus::kAdded);
  EXPECT_TRUE(d.rows[1].entirely);
  EXPECT_EQ(d.rows[1].key.input_dims, "[[3], []]");  // one shape: kept
  EXPECT_EQ(d.totals[RowKind::kCpuOp].rows_a, 2);
  EXPECT_EQ(d.totals[RowKind::kCpuOp].rows_b, 1);
}

TEST(TraceDiff, ShapesBothSidesHaveStillMatchOneByOne) {
  // aten::mm runs with two shapes on A; B keeps one and turns the other: the
  // kept one is a row of its own (unchanged), the other a shape change. A
  // shape only A has, while B still runs the op otherwise, is removed but not
  // entirely.
  TraceBuilder a, b;
  a.Op("aten::mm", 0, 10, kMmDims);
  a.Op("aten::mm", 20, 10, "[[2, 8], [8, 16]]");
  a.Op("aten::bmm", 40, 10, "[[1, 2, 2], [1, 2, 2]]");
  a.Op("aten::bmm", 60, 10, "[[3, 2, 2], [3, 2, 2]]");
  b.Op("aten::mm", 0, 10, kMmDims);
  b.Op("aten::mm", 20, 10, "[[6, 8], [8, 16]]");
  b.Op("aten::bmm", 40, 10, "[[1, 2, 2], [1, 2, 2]]");
  TraceDiff d = DiffSides(Side(a), Side(b));
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.rows[0].key.name, "aten::bmm");
  EXPECT_EQ(d.rows[0].status, RowStatus::kRemoved);
  EXPECT_FALSE(d.rows[0].entirely);
  EXPECT_EQ(d.rows[0].key.input_dims, "[[3, 2, 2], [3, 2, 2]]");
  EXPECT_EQ(d.rows[1].key.name, "aten::mm");
  EXPECT_TRUE(d.rows[1].shapes_changed);
  EXPECT_EQ(d.rows[1].dims_a, std::vector<std::string>{"[[2, 8], [8, 16]]"});
  EXPECT_EQ(d.rows[1].dims_b, std::vector<std::string>{"[[6, 8], [8, 16]]"});
  EXPECT_EQ(d.unchanged_rows, 2);  // aten::mm and aten::bmm with the shapes both have
}

TEST(TraceDiff, OnlyOneSideWithStepsFallsBackToTotals) {
  TraceBuilder a;
  AddStep(a, 1, 0, 10, 4, false);
  TraceBuilder b;
  b.Op("aten::mm", 1, 20, kMmDims);
  TraceDiff d = DiffSides(Side(a), Side(b));
  EXPECT_FALSE(d.per_step);
  EXPECT_EQ(d.steady_steps_a, 1);
  EXPECT_EQ(d.steady_steps_b, 0);
}

TEST(TraceDiff, JsonKeepsKernelNamesWhole) {
  TraceBuilder a;
  a.Op("aten::mm", 0, 5);
  a.Kernel(1, 1, kGemm, 10, 10);
  TraceBuilder b;
  TraceDiff d = DiffSides(Side(a), Side(b));
  const std::string json = TraceDiffToJson(d);
  EXPECT_NE(json.find(std::string("\"name\":\"") + kGemm + "\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"basis\":\"total\""), std::string::npos);
  EXPECT_NE(json.find("\"status\":\"removed\""), std::string::npos);
}

// Two calls of a bf16 mm [256, 512] x [512, 1024], 10 us each, and (with_add) one fp32 add of
// [1024, 1024] taking 18 us, on the device `device_props` describes.
std::string RoofTrace(const std::string& device_props, bool with_add) {
  std::string ev;
  auto op = [&](const std::string& name, int ts, int ext, const std::string& dims,
                const std::string& types, const std::string& kernel, int dur) {
    ev += R"({"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":1,"tid":1,"ts":)" +
          std::to_string(ts) + R"(,"dur":50,"args":{"External id":)" + std::to_string(ext) +
          R"(,"Input Dims":)" + dims + R"(,"Input type":)" + types + "}},";
    ev += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
          std::to_string(ts + 10) + R"(,"dur":2,"args":{"correlation":)" +
          std::to_string(100 + ext) + R"(,"External id":)" + std::to_string(ext) + "}},";
    ev += R"({"ph":"X","cat":"kernel","name":")" + kernel + R"(","pid":0,"tid":7,"ts":)" +
          std::to_string(ts + 20) + R"(,"dur":)" + std::to_string(dur) +
          R"(,"args":{"device":0,"stream":7,"correlation":)" + std::to_string(100 + ext) +
          R"(,"External id":)" + std::to_string(ext) + "}},";
  };
  const std::string bf = R"(["c10::BFloat16", "c10::BFloat16"])";
  op("aten::mm", 0, 1, "[[256, 512], [512, 1024]]", bf, "sm80_bf16_gemm", 10);
  op("aten::mm", 100, 2, "[[256, 512], [512, 1024]]", bf, "sm80_bf16_gemm", 10);
  if (with_add) {
    op("aten::add", 200, 3, "[[1024, 1024], [1024, 1024], []]",
       R"(["float", "float", "Scalar"])", "add_kernel", 18);
  }
  ev.pop_back();
  return R"({"deviceProperties": [)" + device_props + R"(], "traceEvents": [)" + ev + "]}";
}

TEST(TraceDiff, RooflinePerOpOnBothSides) {
  // The same mm time (2 x 10 us) on an A100 SXM4 80GB (A) and an H100 SXM5 (B): 268,435,456
  // FLOPs and 1,835,008 bytes a call, intensity 146.3 under both ridges (153.0, 295.4):
  // memory-bound; 2 * 1,835,008 / 20e-6 s = 1.835008e11 B/s = 8.999549 % of 2.039e12 (A),
  // 5.477636 % of 3.35e12 (B): the same runtime is further from B's roof.
  // The add runs on A only: 3 * 4 * 1,048,576 = 12,582,912 bytes in 18 us = 6.990507e11 B/s
  // = 34.283995 % of 2.039e12.
  const std::string a100 = R"({"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": )"
                           R"(85198045184, "computeMajor": 8, "computeMinor": 0, "numSms": 108})";
  const std::string h100 = R"({"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": )"
                           R"(85028700160, "computeMajor": 9, "computeMinor": 0, "numSms": 132})";
  auto side = [](const std::string& json) {
    StatusOr<trace::EventStore> s = trace::ParseTrace(json);
    EXPECT_TRUE(s.ok()) << s.status().message();
    SideAggregate out;
    AddTrace(*s, out);
    return out;
  };
  const TraceDiff d = DiffSides(side(RoofTrace(a100, true)), side(RoofTrace(h100, false)));
  ASSERT_EQ(d.roofline.size(), 2u);
  const RooflinePair& mm = d.roofline[0];  // 20 us on each side; the add's 18 us is A's only
  const RooflinePair& add = d.roofline[1];
  ASSERT_EQ(mm.key.op, "aten::mm") << add.key.op;
  EXPECT_TRUE(mm.in_a && mm.in_b);
  EXPECT_EQ(mm.a.calls, 2);
  EXPECT_EQ(mm.a.device_ns, 20000);
  EXPECT_EQ(mm.b.device_ns, 20000);
  EXPECT_NEAR(mm.a.pct_of_roof(), 8.999549, 1e-5);
  EXPECT_NEAR(mm.b.pct_of_roof(), 5.477636, 1e-5);
  EXPECT_EQ(mm.a.bound, "memory");
  EXPECT_EQ(mm.a.device, "NVIDIA A100 SXM4 80GB");
  EXPECT_EQ(mm.b.device, "NVIDIA H100 SXM5 80GB");
  EXPECT_EQ(add.key.op, "aten::add");
  EXPECT_TRUE(add.in_a);
  EXPECT_FALSE(add.in_b);
  EXPECT_NEAR(add.a.pct_of_roof(), 34.283995, 1e-5);
  const std::string json = TraceDiffToJson(d);
  EXPECT_NE(json.find(R"("roofline":[{"op":"aten::mm")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("b":null)"), std::string::npos);
}

}  // namespace
}  // namespace fastenough::diff
