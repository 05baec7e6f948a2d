// The peak table against its sources, the tolerant name matching, and the
// --peaks override parser.
#include <gtest/gtest.h>

#include "fastenough/roofline/device_peaks.h"

namespace fastenough::roofline {
namespace {

const DevicePeaks& Named(const PeakTable& t, std::string_view name) {
  for (const DevicePeaks& d : t.devices()) {
    if (d.name == name) return d;
  }
  static DevicePeaks none;
  ADD_FAILURE() << "no entry " << name;
  return none;
}

// Expected figures restate the vendor documents (TFLOP/s dense, TB/s).
struct Source {
  const char* name;
  double fp64, fp64_matrix, fp32, fp32_matrix, tf32, bf16, fp16, fp8, tbps;
};

const Source kSources[] = {
    // A100 datasheet: FP64 9.7, FP64 Tensor 19.5, FP32 19.5, TF32 156, BF16/FP16 312 (dense;
    // 312/624 with sparsity); memory 40GB 1,555 GB/s, 80GB SXM 2,039 GB/s, 80GB PCIe 1,935 GB/s.
    {"NVIDIA A100 SXM4 40GB", 9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 1.555},
    {"NVIDIA A100 SXM4 80GB", 9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 2.039},
    {"NVIDIA A100 PCIe 40GB", 9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 1.555},
    {"NVIDIA A100 PCIe 80GB", 9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 1.935},
    // H100 datasheet, SXM: FP64 34, FP64 TC 67, FP32 67, TF32 989*, BF16/FP16 1,979*,
    // FP8 3,958* (* with sparsity: halved), 3.35 TB/s. PCIe: 26, 51, 51, 756*, 1,513*,
    // 3,026*, 2 TB/s. NVL: 30, 60, 60, 835*, 1,671*, 3,341*, 3.9 TB/s.
    {"NVIDIA H100 SXM5 80GB", 34, 67, 67, 0, 989 / 2.0, 1979 / 2.0, 1979 / 2.0, 3958 / 2.0, 3.35},
    {"NVIDIA H100 PCIe 80GB", 26, 51, 51, 0, 756 / 2.0, 1513 / 2.0, 1513 / 2.0, 3026 / 2.0, 2.0},
    {"NVIDIA H100 NVL 94GB", 30, 60, 60, 0, 835 / 2.0, 1671 / 2.0, 1671 / 2.0, 3341 / 2.0, 3.9},
    // H200: SXM as H100 SXM with 4.8 TB/s; NVL as H100 NVL with 4.8 TB/s.
    {"NVIDIA H200 SXM 141GB", 34, 67, 67, 0, 989 / 2.0, 1979 / 2.0, 1979 / 2.0, 3958 / 2.0, 4.8},
    {"NVIDIA H200 NVL 141GB", 30, 60, 60, 0, 835 / 2.0, 1671 / 2.0, 1671 / 2.0, 3341 / 2.0, 4.8},
    // HGX B200 per GPU: FP64/FP64 TC 37, FP32 75, TF32 2.2 PF*, FP16/BF16 4.5 PF*, FP8 9 PF*,
    // 7.7 TB/s (180 GB HBM3e).
    {"NVIDIA B200 (HGX, 1000 W)", 37, 37, 75, 0, 2200 / 2.0, 4500 / 2.0, 4500 / 2.0, 9000 / 2.0, 7.7},
    // L40S datasheet: FP32 91.6, TF32 183 | 366*, BF16/FP16 362.05 | 733*, FP8 733 | 1,466*,
    // 864 GB/s; no FP64 figure published.
    {"NVIDIA L40S", 0, 0, 91.6, 0, 183, 362.05, 362.05, 733, 0.864},
    // Ada whitepaper, RTX 4090: FP32 82.6, TF32 tensor 82.6, FP16/BF16 tensor (FP32 accumulate)
    // 165.2, FP8 tensor (FP32 accumulate) 330.3, 1,008 GB/s.
    {"NVIDIA GeForce RTX 4090", 0, 0, 82.6, 0, 82.6, 165.2, 165.2, 330.3, 1.008},
    // MI210: FP64 vector 22.6, FP64 matrix 45.3, FP32 vector 22.6, FP32 matrix 45.3,
    // FP16/BF16 181.0, 1.6 TB/s (1,638.4 GB/s).
    {"AMD Instinct MI210", 22.6, 45.3, 22.6, 45.3, 0, 181.0, 181.0, 0, 1.6384},
    // MI250 (per OAM, 2 GCDs): 45.3, 90.5, 45.3, 90.5, FP16/BF16 362.1, 3.2768 TB/s; halved.
    {"AMD Instinct MI250 (one GCD)", 45.3 / 2, 90.5 / 2, 45.3 / 2, 90.5 / 2, 0, 362.1 / 2,
     362.1 / 2, 0, 3.2768 / 2},
    // MI250X (per OAM): 47.9, 95.7, 47.9, 95.7, FP16/BF16 383.0, 3.2768 TB/s; halved.
    {"AMD Instinct MI250X (one GCD)", 47.9 / 2, 95.7 / 2, 47.9 / 2, 95.7 / 2, 0, 383.0 / 2,
     383.0 / 2, 0, 3.2768 / 2},
    // MI300X data sheet: FP64 vector 81.7, matrix 163.4, FP32 vector 163.4, matrix 163.4,
    // TF32 653.7, FP16/BF16 1,307.4, FP8 2,614.9 (dense), 5.3 TB/s. MI325X: same compute, 6 TB/s.
    {"AMD Instinct MI300X", 81.7, 163.4, 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 5.3},
    {"AMD Instinct MI325X", 81.7, 163.4, 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 6.0},
    // MI355X: FP64 vector 78.6, matrix 78.6, FP32 157.3, FP16/BF16 2.5 PF (2,516.6),
    // FP8 5 PF (5,033.2), 8 TB/s; no TF32.
    {"AMD Instinct MI355X", 78.6, 78.6, 157.3, 157.3, 0, 2516.6, 2516.6, 5033.2, 8.0},
    // Gaudi 2: BF16 MME 432, FP8 MME 865, 2.45 TB/s. Gaudi 3: BF16 and FP8 MME 1,835, 3.7 TB/s.
    {"Intel Gaudi 2", 0, 0, 0, 0, 0, 432, 0, 865, 2.45},
    {"Intel Gaudi 3", 0, 0, 0, 0, 0, 1835, 0, 1835, 3.7},
    // Max 1550: FP64 52, FP32 52, TF32 XMX 419, BF16/FP16 XMX 839, 3.2768 TB/s.
    {"Intel Data Center GPU Max 1550", 52, 52, 52, 0, 419, 839, 839, 0, 3.2768},
};

TEST(RooflinePeaks, TableMatchesSources) {
  const PeakTable t = PeakTable::Builtin();
  EXPECT_EQ(t.devices().size(), std::size(kSources));
  for (const Source& s : kSources) {
    SCOPED_TRACE(s.name);
    const DevicePeaks& d = Named(t, s.name);
    EXPECT_NEAR(d.fp64, s.fp64, 1e-9);
    EXPECT_NEAR(d.fp64_matrix, s.fp64_matrix, 1e-9);
    EXPECT_NEAR(d.fp32, s.fp32, 1e-9);
    EXPECT_NEAR(d.fp32_matrix, s.fp32_matrix, 1e-9);
    EXPECT_NEAR(d.tf32, s.tf32, 1e-9);
    EXPECT_NEAR(d.bf16, s.bf16, 1e-9);
    EXPECT_NEAR(d.fp16, s.fp16, 1e-9);
    EXPECT_NEAR(d.fp8, s.fp8, 1e-9);
    EXPECT_NEAR(d.memory_tb_per_s, s.tbps, 1e-9);
    EXPECT_NE(d.source.find("https://"), std::string::npos);
  }
}

std::string Match(const PeakTable& t, const char* name, int sms = 0, double mem_gb = 0,
                  int major = 0, int minor = 0, std::string* how = nullptr) {
  DeviceQuery q;
  q.name = name;
  q.num_sms = sms;
  q.total_memory_bytes = static_cast<int64_t>(mem_gb * 1e9);
  q.compute_major = major;
  q.compute_minor = minor;
  StatusOr<DeviceMatch> m = t.Lookup(q);
  if (!m.ok()) return "<" + m.status().message() + ">";
  if (how != nullptr) *how = m->how;
  return m->peaks.name;
}

TEST(RooflinePeaks, NameMatching) {
  const PeakTable t = PeakTable::Builtin();
  // Names as deviceProperties / torch.cuda.get_device_name spell them.
  EXPECT_EQ(Match(t, "NVIDIA A100-SXM4-80GB"), "NVIDIA A100 SXM4 80GB");
  EXPECT_EQ(Match(t, "NVIDIA A100-SXM4-40GB"), "NVIDIA A100 SXM4 40GB");
  EXPECT_EQ(Match(t, "NVIDIA A100-PCIE-40GB"), "NVIDIA A100 PCIe 40GB");
  EXPECT_EQ(Match(t, "NVIDIA A100 80GB PCIe"), "NVIDIA A100 PCIe 80GB");
  // The corpus' A100-PG509-200 (an SXM board) reports 42,505,273,344 bytes: the 40GB part.
  std::string how;
  EXPECT_EQ(Match(t, "NVIDIA A100-PG509-200", 108, 42.505273344, 8, 0, &how),
            "NVIDIA A100 SXM4 40GB");
  EXPECT_EQ(how, "name + memory size");
  EXPECT_EQ(Match(t, "nvidia a100_sxm4_80gb"), "NVIDIA A100 SXM4 80GB");
  EXPECT_EQ(Match(t, "NVIDIA H100 80GB HBM3"), "NVIDIA H100 SXM5 80GB");
  EXPECT_EQ(Match(t, "NVIDIA H100 PCIe"), "NVIDIA H100 PCIe 80GB");
  EXPECT_EQ(Match(t, "NVIDIA H100 NVL"), "NVIDIA H100 NVL 94GB");
  EXPECT_EQ(Match(t, "NVIDIA H200"), "NVIDIA H200 SXM 141GB");
  EXPECT_EQ(Match(t, "NVIDIA H200 NVL"), "NVIDIA H200 NVL 141GB");
  EXPECT_EQ(Match(t, "NVIDIA B200"), "NVIDIA B200 (HGX, 1000 W)");
  EXPECT_EQ(Match(t, "NVIDIA L40S"), "NVIDIA L40S");
  EXPECT_EQ(Match(t, "NVIDIA GeForce RTX 4090"), "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(Match(t, "AMD Instinct MI210"), "AMD Instinct MI210");
  EXPECT_EQ(Match(t, "AMD Instinct MI300X"), "AMD Instinct MI300X");
  EXPECT_EQ(Match(t, "AMD Instinct MI300X VF"), "AMD Instinct MI300X");
  EXPECT_EQ(Match(t, "AMD Instinct MI325X"), "AMD Instinct MI325X");
  EXPECT_EQ(Match(t, "AMD Instinct MI355X"), "AMD Instinct MI355X");
  EXPECT_EQ(Match(t, "Intel(R) Data Center GPU Max 1550"), "Intel Data Center GPU Max 1550");
  EXPECT_EQ(Match(t, "Gaudi 3"), "Intel Gaudi 3");
  EXPECT_EQ(Match(t, "GAUDI2"), "Intel Gaudi 2");
  // ROCm names both MI250 parts alike: the CUs per GCD decide (110 MI250X, 104 MI250).
  EXPECT_EQ(Match(t, "AMD Instinct MI250X / MI250", 110), "AMD Instinct MI250X (one GCD)");
  EXPECT_EQ(Match(t, "AMD Instinct MI250X / MI250", 104), "AMD Instinct MI250 (one GCD)");
  EXPECT_EQ(Match(t, "AMD Instinct MI250X / MI250", 0, 0, 0, 0, &how),
            "AMD Instinct MI250X (one GCD)");
  EXPECT_NE(how.find("CU count unknown"), std::string::npos);
  // "AMD Radeon Graphics": the architecture decides (the corpus MI250: gfx90a, 104 CUs, 64 GiB).
  EXPECT_EQ(Match(t, "AMD Radeon Graphics", 104, 68.70269952, 9, 0, &how),
            "AMD Instinct MI250 (one GCD)");
  EXPECT_NE(how.find("gfx90a"), std::string::npos);
  EXPECT_EQ(Match(t, "AMD Radeon Graphics", 110, 68.7, 9, 0), "AMD Instinct MI250X (one GCD)");
  EXPECT_EQ(Match(t, "AMD Radeon Graphics", 304, 206.0, 9, 4), "AMD Instinct MI300X");
  EXPECT_EQ(Match(t, "AMD Radeon Graphics", 304, 274.9, 9, 4), "AMD Instinct MI325X");
  EXPECT_EQ(Match(t, "AMD Radeon Graphics", 256, 309.2, 9, 5), "AMD Instinct MI355X");
  // Near misses do not match: an RTX A1000 is no A100, a GB200 no B200, an L40 no L40S,
  // and Hopper's compute capability 9.0 is not gfx90a.
  for (const char* n : {"NVIDIA RTX A1000", "NVIDIA GB200", "NVIDIA L40", "Tesla V100-SXM2-32GB",
                        "NVIDIA GeForce RTX 4090 D", "", "Ascend910B"}) {
    EXPECT_EQ(Match(t, n).front(), '<') << n;
  }
  EXPECT_EQ(Match(t, "NVIDIA Graphics Device", 132, 85, 9, 0).front(), '<');
  EXPECT_NE(Match(t, "Tesla V100").find("--peaks"), std::string::npos);
}

TEST(RooflinePeaks, PeakPerDtype) {
  const PeakTable t = PeakTable::Builtin();
  const DevicePeaks& a100 = Named(t, "NVIDIA A100 SXM4 80GB");
  const DevicePeaks& mi250 = Named(t, "AMD Instinct MI250 (one GCD)");
  // FP32 GEMM on an A100: no FP32 matrix units, the vector rate (TF32 only when asked).
  EXPECT_EQ(PeakFlopsFor(a100, Dtype::kFP32, true)->column, "fp32");
  EXPECT_DOUBLE_EQ(PeakFlopsFor(a100, Dtype::kFP32, true)->flop_per_s, 19.5e12);
  EXPECT_DOUBLE_EQ(PeakFlopsFor(a100, Dtype::kTF32, true)->flop_per_s, 156e12);
  EXPECT_DOUBLE_EQ(PeakFlopsFor(a100, Dtype::kBF16, true)->flop_per_s, 312e12);
  EXPECT_DOUBLE_EQ(PeakFlopsFor(a100, Dtype::kFP64, true)->flop_per_s, 19.5e12);
  EXPECT_EQ(PeakFlopsFor(a100, Dtype::kFP8, true).status().code(), StatusCode::kNotFound);
  // Elementwise bf16: the FP32 vector rate.
  EXPECT_EQ(PeakFlopsFor(a100, Dtype::kBF16, false)->column, "fp32");
  // MI250 FP32 GEMM: the MFMA FP32 rate.
  EXPECT_EQ(PeakFlopsFor(mi250, Dtype::kFP32, true)->column, "fp32_matrix");
  EXPECT_DOUBLE_EQ(PeakFlopsFor(mi250, Dtype::kFP32, true)->flop_per_s, 45.25e12);
  EXPECT_DOUBLE_EQ(MemoryBytesPerSecond(mi250), 1.6384e12);
  EXPECT_EQ(PeakFlopsFor(a100, Dtype::kInt64, true).status().code(), StatusCode::kNotFound);
}

TEST(RooflinePeaks, OverrideBuiltinFields) {
  PeakTable t = PeakTable::Builtin();
  Status s = t.ApplyOverride(R"({"devices": [{"name": "NVIDIA A100-SXM4-80GB",
      "tflops": {"bf16": 280.5}, "memory_tb_per_s": 1.9, "source": "measured 2026-05"}]})");
  ASSERT_TRUE(s.ok()) << s.message();
  StatusOr<DeviceMatch> m = t.Lookup("NVIDIA A100-SXM4-80GB");
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(m->peaks.bf16, 280.5);
  EXPECT_DOUBLE_EQ(m->peaks.memory_tb_per_s, 1.9);
  EXPECT_DOUBLE_EQ(m->peaks.fp32, 19.5);  // untouched
  EXPECT_EQ(m->peaks.source, "measured 2026-05");
  // The other A100s keep the datasheet.
  EXPECT_DOUBLE_EQ(t.Lookup("NVIDIA A100-SXM4-40GB")->peaks.bf16, 312);
}

TEST(RooflinePeaks, OverrideAddsDevice) {
  PeakTable t = PeakTable::Builtin();
  ASSERT_TRUE(t.Lookup("Ascend910B3").status().code() == StatusCode::kNotFound);
  Status s = t.ApplyOverride(R"({"devices": [{"name": "Ascend910B3",
      "tflops": {"fp16": 313, "bf16": 313, "fp32": 75}, "memory_tb_per_s": 1.6}]})");
  ASSERT_TRUE(s.ok()) << s.message();
  StatusOr<DeviceMatch> m = t.Lookup("ascend 910b3");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->peaks.name, "Ascend910B3");
  EXPECT_DOUBLE_EQ(m->peaks.bf16, 313);
  EXPECT_EQ(m->peaks.source, "peaks file");
  EXPECT_EQ(m->how, "name (from the --peaks file)");
  // A second file may change it again.
  ASSERT_TRUE(t.ApplyOverride(R"({"devices": [{"name": "Ascend910B3", "tflops": {"bf16": 300}}]})").ok());
  EXPECT_DOUBLE_EQ(t.Lookup("Ascend910B3")->peaks.bf16, 300);
}

TEST(RooflinePeaks, OverrideRejectsMalformedInput) {
  const char* bad[] = {
      "",
      "not json",
      "[1, 2]",
      "{}",
      R"({"devices": {}})",
      R"({"devices": [], "extra": 1})",
      R"({"devices": [42]})",
      R"({"devices": [{"tflops": {"bf16": 1}}]})",
      R"({"devices": [{"name": "", "tflops": {"bf16": 1}}]})",
      R"({"devices": [{"name": "X1", "tflops": {"bf61": 1}, "memory_tb_per_s": 1}]})",
      R"({"devices": [{"name": "X1", "tflops": {"bf16": -1}, "memory_tb_per_s": 1}]})",
      R"({"devices": [{"name": "X1", "tflops": {"bf16": "312"}, "memory_tb_per_s": 1}]})",
      R"({"devices": [{"name": "X1", "tflops": [312], "memory_tb_per_s": 1}]})",
      R"({"devices": [{"name": "X1", "tflops": {"bf16": 1}, "memory_tb_per_s": 0}]})",
      R"({"devices": [{"name": "X1", "tflops": {"bf16": 1}}]})",
      R"({"devices": [{"name": "X1"}]})",
      R"({"devices": [{"name": "X1", "memory_tb_per_s": 1, "bandwidth": 2}]})",
      R"({"devices": [{"name": "X1", "memory_tb_per_s": 1, "source": 7}]})",
      R"({"devices": [{"name": "X1", "memory_tb_per_s": 1}, {"name": "x-1", "memory_tb_per_s": 2}]})",
      R"({"devices": [{"name": "NVIDIA H100", "tflops": {"bf16": 1}}, {"name": "X1"}]})",
      R"({"devices": [{"name": "X1", "memory_tb_per_s": 1})",
  };
  for (const char* j : bad) {
    PeakTable t = PeakTable::Builtin();
    Status s = t.ApplyOverride(j);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << j;
    EXPECT_FALSE(s.message().empty());
    // Nothing applied, not even the good entry before the bad one.
    EXPECT_DOUBLE_EQ(t.Lookup("NVIDIA H100 80GB HBM3")->peaks.bf16, 989.5) << j;
    EXPECT_FALSE(t.Lookup("X1").ok()) << j;
  }
}

}  // namespace
}  // namespace fastenough::roofline
