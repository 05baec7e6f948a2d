#include "fastenough/diff/trace_diff.h"

#include <gtest/gtest.h>

#include "fastenough/diff/trace_diff_json.h"
#include "fastenough/findings/test_trace_builder.h"

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
  b.Op("aten::mm", 40, 10, "[[8, 8], [8, 16]]");  // other shapes: another row
  TraceDiff d = DiffSides(Side(a), Side(b));
  EXPECT_FALSE(d.per_step);
  ASSERT_EQ(d.rows.size(), 3u);
  // Equal |delta| (10 µs): ordered by key, the shapes "[[4..." before "[[8...".
  EXPECT_EQ(d.rows[0].key.name, "aten::item");
  EXPECT_EQ(d.rows[0].status, RowStatus::kChanged);
  EXPECT_TRUE(d.rows[0].calls_changed);
  EXPECT_DOUBLE_EQ(d.rows[0].delta_calls(), -1);
  EXPECT_EQ(d.rows[1].key.input_dims, kMmDims);
  EXPECT_EQ(d.rows[1].status, RowStatus::kRemoved);
  EXPECT_EQ(d.rows[2].key.input_dims, "[[8, 8], [8, 16]]");
  EXPECT_EQ(d.rows[2].status, RowStatus::kAdded);
  EXPECT_EQ(d.unchanged_rows, 0);
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

}  // namespace
}  // namespace fastenough::diff
