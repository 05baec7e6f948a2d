// Three ops each from two real traces with shapes (shared/corpus/hta, see its
// SOURCE.md), their figures computed by hand below. The kernels an op launched
// are found as a caller will: kernel -> launching runtime call (correlation)
// -> innermost enclosing cpu op on its thread; their durations are summed.
// Skips when the corpus is absent.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "fastenough/analysis/call_tree.h"
#include "fastenough/roofline/device_peaks.h"
#include "fastenough/roofline/math_dtype.h"
#include "fastenough/roofline/op_work.h"
#include "fastenough/roofline/roofline.h"
#include "fastenough/trace/load_trace.h"

namespace fastenough::roofline {
namespace {

namespace fs = std::filesystem;
using trace::EventKind;

const fs::path kCorpus = [] {
  const char* env = std::getenv("FASTENOUGH_CORPUS");
  return env != nullptr && *env != '\0' ? fs::path(env) : fs::path(FASTENOUGH_CORPUS);
}();

struct Loaded {
  trace::EventStore store;
  std::map<int32_t, int64_t> device_ns;  // cpu op row -> summed device time of its kernels
  std::map<int32_t, std::vector<std::string_view>> kernels;  // cpu op row -> kernel names
};

Loaded Load(const fs::path& p) {
  StatusOr<trace::EventStore> s = trace::LoadTrace(p.string());
  EXPECT_TRUE(s.ok()) << s.status().message();
  Loaded l{std::move(*s), {}, {}};
  const analysis::CallTree tree = analysis::BuildCallTree(l.store);
  for (size_t k = 0; k < l.store.size(); ++k) {
    if (!trace::IsDeviceActivity(l.store.kind[k])) continue;
    const int32_t launch = l.store.launch_row[k];
    if (launch == trace::kNoRow) continue;
    const int32_t op = tree.Enclosing(l.store, launch, EventKind::kCpuOp);
    if (op == trace::kNoRow) continue;
    l.device_ns[op] += l.store.dur_ns[k];
    l.kernels[op].push_back(l.store.name_of(k));
  }
  return l;
}

// The first op (file order) of that name and those Input Dims that launched
// device work; its model and device time.
struct Found {
  OpWork work;
  int64_t ns = 0;
  std::vector<std::string_view> kernels;
};

std::string NoSpaces(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch != ' ') out += ch;
  }
  return out;
}

std::string_view Concrete(const trace::EventStore& st, size_t row) {
  return st.input_concrete[row] == kNoString ? std::string_view()
                                             : st.strings().Get(st.input_concrete[row]);
}

// Every op with shapes in the trace gets a model or "no model", never "bad
// shapes": the real strings parse. Returns (modelled, no model).
std::pair<int, int> ModelAll(const trace::EventStore& st) {
  int ok = 0, none = 0;
  for (size_t r = 0; r < st.size(); ++r) {
    if (st.kind[r] != EventKind::kCpuOp || st.input_dims[r] == kNoString) continue;
    StatusOr<OpWork> w = ModelOp(st.name_of(r), st.strings().Get(st.input_dims[r]),
                                 st.input_types[r] == kNoString ? "[]" : st.strings().Get(st.input_types[r]),
                                 Concrete(st, r));
    if (w.ok()) {
      ++ok;
      EXPECT_GE(w->flops, 0);
      EXPECT_GE(w->bytes, 0);  // 0 for an op on empty tensors ([[0], [0], []] copy_)
    } else if (IsNoModel(w.status())) {
      ++none;
    } else {
      ADD_FAILURE() << st.name_of(r) << " " << st.strings().Get(st.input_dims[r]) << ": "
                    << w.status().message();
    }
  }
  return {ok, none};
}

Found Find(const Loaded& l, std::string_view name, std::string_view dims) {
  const std::string want = NoSpaces(dims);
  for (const auto& [row, ns] : l.device_ns) {  // row order = file order
    const auto& st = l.store;
    if (st.name_of(row) != name || st.input_dims[row] == kNoString) continue;
    if (NoSpaces(st.strings().Get(st.input_dims[row])) != want) continue;
    StatusOr<OpWork> w = ModelOp(name, st.strings().Get(st.input_dims[row]),
                                 st.strings().Get(st.input_types[row]), Concrete(st, row));
    EXPECT_TRUE(w.ok()) << w.status().message();
    return {w.ok() ? *w : OpWork{}, ns, l.kernels.at(row)};
  }
  ADD_FAILURE() << "no " << name << " " << dims << " with kernels";
  return {};
}

RooflinePoint At(const Found& f, const DevicePeaks& d) {
  StatusOr<PeakFlops> pf = PeakFlopsFor(d, f.work.dtype, f.work.matrix);
  EXPECT_TRUE(pf.ok());
  StatusOr<RooflinePoint> p = Evaluate(f.work, f.ns, pf->flop_per_s, MemoryBytesPerSecond(d));
  EXPECT_TRUE(p.ok());
  return p.ok() ? *p : RooflinePoint{};
}

TEST(RooflineCorpus, A100ThreeOps) {
  const fs::path p = kCorpus / "negative_queue_length_values_check/rank0.json.gz";
  if (!fs::exists(p)) GTEST_SKIP() << "corpus not present: " << p;
  const Loaded l = Load(p);
  ASSERT_FALSE(l.store.device_properties.empty());
  StatusOr<DeviceMatch> m =
      PeakTable::Builtin().Lookup(DeviceQuery::From(l.store.device_properties[0]));
  ASSERT_TRUE(m.ok());
  // deviceProperties name "NVIDIA A100-SXM4-80GB": FP32 19.5 TFLOP/s, 2.039 TB/s.
  EXPECT_EQ(m->peaks.name, "NVIDIA A100 SXM4 80GB");

  const auto [modelled, unmodelled] = ModelAll(l.store);
  std::printf("A100 trace: %d ops modelled, %d without a model\n", modelled, unmodelled);
  EXPECT_GT(modelled, 1000);

  // 1. aten::mm [[64, 4096], [4096, 100]] fp32, split-K: cutlass GEMM 14 us + splitKreduce 9 us.
  //    FLOPs 2*64*100*4096 = 52,428,800; bytes 4*(262,144 + 409,600 + 6,400) = 2,712,576.
  //    52,428,800 / 23 us = 2.2795e12 FLOP/s = 11.6898 % of 19.5e12 (compute-bound: 19.33 > 9.56);
  //    2,712,576 / 23 us = 1.1794e11 B/s = 5.7841 % of 2.039e12.
  Found mm = Find(l, "aten::mm", "[[64, 4096], [4096, 100]]");
  EXPECT_EQ(mm.ns, 23000);
  EXPECT_DOUBLE_EQ(mm.work.flops, 52428800);
  EXPECT_DOUBLE_EQ(mm.work.bytes, 2712576);
  RooflinePoint a = At(mm, m->peaks);
  EXPECT_NEAR(a.pct_of_compute_peak, 11.68981, 1e-4);
  EXPECT_NEAR(a.pct_of_memory_peak, 5.78411, 1e-4);
  EXPECT_EQ(a.bound, Bound::kCompute);

  // 2. aten::addmm [[64], [4096, 2798], [2798, 64]] fp32: Memset 1 us + cutlass GEMM 89 us.
  //    FLOPs 2*4096*64*2798 = 1,466,957,824 + bias 4096*64 = 262,144 -> 1,467,219,968;
  //    bytes 4*(64 + 11,460,608 + 179,072 + 262,144) = 47,607,552.
  //    / 90 us = 1.6302e13 FLOP/s = 83.6023 % of FP32 19.5e12 (the kernel is a TF32
  //    tensor-op GEMM: the FP32 roof is the wrong one to hold it to, see docs/roofline.md);
  //    5.2897e11 B/s = 25.9428 %.
  Found addmm = Find(l, "aten::addmm", "[[64], [4096, 2798], [2798, 64], [], []]");
  EXPECT_EQ(addmm.ns, 90000);
  EXPECT_DOUBLE_EQ(addmm.work.flops, 1467219968.0);
  EXPECT_DOUBLE_EQ(addmm.work.bytes, 47607552);
  RooflinePoint b = At(addmm, m->peaks);
  EXPECT_NEAR(b.pct_of_compute_peak, 83.60228, 1e-4);
  EXPECT_NEAR(b.pct_of_memory_peak, 25.94276, 1e-4);
  // Its kernel, cutlass_80_tensorop_s1688gemm_*, is a TF32 tensor-op GEMM: held to the
  // TF32 roof (156e12) it runs at 1.6302e13 / 156e12 = 10.4503 %. The split-K mm's
  // kernels are TF32 too: 2.2795e12 / 156e12 = 1.4612 %.
  ASSERT_EQ(MathDtype(addmm.work, addmm.kernels), Dtype::kTF32);
  StatusOr<PeakFlops> tf32 = PeakFlopsFor(m->peaks, Dtype::kTF32, true);
  ASSERT_TRUE(tf32.ok());
  EXPECT_NEAR(Evaluate(addmm.work, addmm.ns, tf32->flop_per_s, MemoryBytesPerSecond(m->peaks))
                  ->pct_of_compute_peak,
              10.45028, 1e-4);
  ASSERT_EQ(MathDtype(mm.work, mm.kernels), Dtype::kTF32);
  EXPECT_NEAR(Evaluate(mm.work, mm.ns, tf32->flop_per_s, MemoryBytesPerSecond(m->peaks))
                  ->pct_of_compute_peak,
              1.46123, 1e-4);

  // 3. aten::add [[4096, 2862], [4096, 2862], []] fp32: one kernel, 76 us.
  //    bytes 3*4*11,722,752 = 140,673,024; / 76 us = 1.8510e12 B/s = 90.7779 % of 2.039e12:
  //    near the memory roof.
  Found add = Find(l, "aten::add", "[[4096, 2862], [4096, 2862], []]");
  EXPECT_EQ(add.ns, 76000);
  EXPECT_DOUBLE_EQ(add.work.bytes, 140673024);
  RooflinePoint c = At(add, m->peaks);
  EXPECT_NEAR(c.pct_of_memory_peak, 90.77787, 1e-4);
  EXPECT_EQ(c.bound, Bound::kMemory);
  EXPECT_NEAR(c.pct_of_roof, 90.77787, 1e-4);
}

TEST(RooflineCorpus, MI250ThreeOps) {
  const fs::path p = kCorpus / "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz";
  if (!fs::exists(p)) GTEST_SKIP() << "corpus not present: " << p;
  const Loaded l = Load(p);
  ASSERT_FALSE(l.store.device_properties.empty());
  // deviceProperties: "AMD Radeon Graphics", computeMajor 9 / minor 0 (gfx90a), 104 CUs,
  // 68,702,699,520 bytes: one MI250 GCD: FP32 matrix 45.25 TFLOP/s, FP32 vector 22.65,
  // 1.6384 TB/s; ridge 45.25 / 1.6384 = 27.62 FLOPs/byte.
  StatusOr<DeviceMatch> m =
      PeakTable::Builtin().Lookup(DeviceQuery::From(l.store.device_properties[0]));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->peaks.name, "AMD Instinct MI250 (one GCD)");

  const auto [modelled, unmodelled] = ModelAll(l.store);
  std::printf("MI250 trace: %d ops modelled, %d without a model\n", modelled, unmodelled);
  EXPECT_GT(modelled, 10);

  // 1. aten::addmm [[128], [5, 128], [128, 128]] fp32: bias-broadcast elementwise kernel
  //    6.88 us + Cijk (hipBLASLt) GEMM 17.6 us = 24,480 ns.
  //    FLOPs 2*5*128*128 + 5*128 = 164,480; bytes 4*(128 + 640 + 16,384 + 640) = 71,168.
  //    164,480 / 24.48 us = 6.719e9 FLOP/s = 0.014849 % of 45.25e12;
  //    71,168 / 24.48 us = 2.907e9 B/s = 0.17744 % of 1.6384e12; intensity 2.31: memory-bound,
  //    time at the roof 71,168 / 1.6384e12 = 43.4 ns = 0.17744 % of the time.
  Found addmm = Find(l, "aten::addmm", "[[128], [5, 128], [128, 128], [], []]");
  EXPECT_EQ(addmm.ns, 24480);
  EXPECT_DOUBLE_EQ(addmm.work.flops, 164480);
  EXPECT_DOUBLE_EQ(addmm.work.bytes, 71168);
  RooflinePoint a = At(addmm, m->peaks);
  EXPECT_NEAR(a.pct_of_compute_peak, 0.0148485, 1e-6);
  EXPECT_NEAR(a.pct_of_memory_peak, 0.1774408, 1e-6);
  EXPECT_EQ(a.bound, Bound::kMemory);
  EXPECT_NEAR(a.pct_of_roof, 0.1774408, 1e-6);

  // 2. aten::mm [[128, 5], [5, 128]] fp32 (the weight gradient): one GEMM, 12.64 us.
  //    FLOPs 2*128*128*5 = 163,840; bytes 4*(640 + 640 + 16,384) = 70,656.
  //    0.028645 % of compute, 0.341179 % of memory.
  Found mm = Find(l, "aten::mm", "[[128, 5], [5, 128]]");
  EXPECT_EQ(mm.ns, 12640);
  EXPECT_DOUBLE_EQ(mm.work.flops, 163840);
  EXPECT_DOUBLE_EQ(mm.work.bytes, 70656);
  RooflinePoint b = At(mm, m->peaks);
  EXPECT_NEAR(b.pct_of_compute_peak, 0.0286454, 1e-6);
  EXPECT_NEAR(b.pct_of_memory_peak, 0.3411788, 1e-6);

  // 3. aten::add_ [[128, 128], [128, 128], []] fp32 (AccumulateGrad): one kernel, 4.16 us.
  //    bytes 3*4*16,384 = 196,608; FLOPs 16,384 (vector roof: FP32 22.65e12).
  //    196,608 / 4.16 us = 4.726e10 B/s = 2.884615 % of 1.6384e12; 0.017388 % of 22.65e12.
  Found add = Find(l, "aten::add_", "[[128, 128], [128, 128], []]");
  EXPECT_EQ(add.ns, 4160);
  EXPECT_DOUBLE_EQ(add.work.bytes, 196608);
  RooflinePoint c = At(add, m->peaks);
  EXPECT_NEAR(c.pct_of_memory_peak, 2.8846154, 1e-6);
  EXPECT_NEAR(c.pct_of_compute_peak, 0.0173884, 1e-6);
}

}  // namespace
}  // namespace fastenough::roofline
