// The roofline verdicts (issue 38 item 3): ops-near-roof and the below-roof
// findings (below_roof.cc, ops_near_roof.cc, roofline_causes.h) on hand-built
// traces, every figure computed by hand in the comments, and on the A100 and
// MI250 corpus traces.
//
// Peaks (roofline/device_peaks.cc), NVIDIA A100 SXM4 80GB: BF16 312e12 FLOP/s,
// TF32 156e12, FP32 (vector) 19.5e12; memory 2.039e12 B/s; ridge BF16
// 312 / 2.039 = 153.02 FLOP/byte. deviceProperties numSms 108.
// The traces have no ProfilerStep: the whole trace is one steady window, so a
// saving per step is its total.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "fastenough/findings/roofline_causes.h"
#include "fastenough/pipeline/analyze.h"
#include "fastenough/trace/load_trace.h"

namespace fastenough::findings {
namespace {

namespace fs = std::filesystem;

const std::string kBf16x2 = R"(["c10::BFloat16", "c10::BFloat16"])";

struct RoofTrace {
  std::string events;
  int ext = 0;
  // One op at ts (us) of 10 us on the host, as an asynchronous launch takes,
  // with one kernel starting 5 us after it and running kernel_us; the op's
  // launch call at ts + 1 (2 us).
  void Op(const std::string& name, double ts, const std::string& dims,
          const std::string& types, const std::string& kernel, double kernel_us) {
    ++ext;
    const std::string e = std::to_string(ext);
    const std::string corr = std::to_string(1000 + ext);
    events += R"({"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":1,"tid":1,"ts":)" +
              std::to_string(ts) + R"(,"dur":10,"args":{"External id":)" + e + R"(,"Input Dims":)" + dims +
              R"(,"Input type":)" + types + "}},";
    events += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
              std::to_string(ts + 1) + R"(,"dur":2,"args":{"correlation":)" + corr +
              R"(,"External id":)" + e + "}},";
    events += R"({"ph":"X","cat":"kernel","name":")" + kernel + R"(","pid":0,"tid":7,"ts":)" +
              std::to_string(ts + 5) + R"(,"dur":)" + std::to_string(kernel_us) +
              R"(,"args":{"device":0,"stream":7,"correlation":)" + corr +
              R"(,"External id":)" + e + "}},";
  }
  std::string Json(bool with_device) const {
    std::string ev = events;
    ev.pop_back();
    const std::string props =
        with_device ? R"("deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB",
           "totalGlobalMem": 85198045184, "computeMajor": 8, "computeMinor": 0, "numSms": 108}],)"
                    : "";
    return "{" + props + R"("traceEvents": [)" + ev + "]}";
  }
};

report::Report Analyze(const std::string& json) {
  StatusOr<trace::EventStore> s = trace::ParseTrace(json);
  EXPECT_TRUE(s.ok()) << s.status().message();
  const trace::EventStore store = std::move(s).value();
  return pipeline::BuildReport({&store}, pipeline::AnalyzeOptions{});
}

const Finding* Find(const report::Report& r, const std::string& code) {
  for (const auto& f : r.findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

const EvidenceValue* Ev(const Finding& f, const std::string& key) {
  for (const auto& [k, v] : f.evidence) {
    if (k == key) return &v;
  }
  return nullptr;
}
double Num(const Finding& f, const std::string& key) {
  const EvidenceValue* v = Ev(f, key);
  if (v == nullptr) return NAN;
  if (const auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  return NAN;
}
std::string Str(const Finding& f, const std::string& key) {
  const EvidenceValue* v = Ev(f, key);
  return v != nullptr && std::holds_alternative<std::string>(*v) ? std::get<std::string>(*v) : "";
}

const char* kBelowRoofCodes[] = {"gemm-wave-quantization", "gemm-dims-unaligned",
                                 "gemm-memory-bound-shape", "attention-short-sequence",
                                 "fp32-in-mixed-precision"};
int BelowRoofFindings(const report::Report& r) {
  int n = 0;
  for (const char* c : kBelowRoofCodes) n += Find(r, c) != nullptr;
  return n;
}

// A bf16 mm [8192, 8192] x [8192, 8192], 4000 us:
// FLOPs 2 * 8192^3 = 1,099,511,627,776 -> 3,524,076 ns at 312e12;
// bytes 2 * 3 * 8192^2 = 402,653,184 -> 197,476 ns at 2.039e12: compute-bound,
// 3,524,076 / 4,000,000 = 88.10 % of the compute roof (near: >= 70 %).
void BigNearRoofMm(RoofTrace& t, double ts) {
  t.Op("aten::mm", ts, "[[8192, 8192], [8192, 8192]]", kBf16x2,
       "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_nn", 4000);
}

TEST(RooflineVerdicts, NearRoofOpIsBoundedWithNoFinding) {
  RoofTrace t;
  BigNearRoofMm(t, 0);
  const report::Report r = Analyze(t.Json(true));
  const Finding* f = Find(r, "ops-near-roof");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->verdict, Verdict::kBounded);
  // The window is [0, 4005] us, the kernel busy 4000 us of it: 0.99875 -> 0.999 (>= 0.85).
  EXPECT_NEAR(Num(*f, "device_busy_share"), 0.999, 1e-9);
  EXPECT_NEAR(Num(*f, "near_roof_share_of_device_time"), 1.0, 1e-9);
  EXPECT_EQ(Num(*f, "near_roof_ops"), 1);
  EXPECT_NEAR(Num(*f, "pct_of_roof"), 88.102, 1e-3);
  EXPECT_EQ(Str(*f, "roof"), "compute");
  EXPECT_EQ(Str(*f, "peak_dtype"), "bf16");
  EXPECT_EQ(f->saving.per_step_ns, -1);  // no saving claimed
  EXPECT_EQ(BelowRoofFindings(r), 0);
}

TEST(RooflineVerdicts, AnOpAboveItsRoofGetsANoteAndNoVerdict) {
  // The same mm in 3000 us: 2 * 8192^3 = 1,099,511,627,776 FLOP over 3e-3 s is
  // 366.5e12 FLOP/s, 117.5% of the A100's 312e12 BF16: more than the device can
  // do, so the peak or the model is not what ran. Neither bounded nor a cause.
  RoofTrace t;
  t.Op("aten::mm", 0, "[[8192, 8192], [8192, 8192]]", kBf16x2,
       "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_nn", 3000);
  const report::Report r = Analyze(t.Json(true));
  ASSERT_EQ(r.roofline.size(), 1u);
  ASSERT_FALSE(r.roofline[0].ops.empty());
  const auto& row = r.roofline[0].ops[0];
  EXPECT_NEAR(row.pct_of_compute_peak, 117.4692, 1e-3);
  bool noted = false;
  for (const auto& n : row.notes) noted = noted || n.find("above its roof (117.5%)") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(Find(r, "ops-near-roof"), nullptr);
  EXPECT_EQ(BelowRoofFindings(r), 0);
}

TEST(RooflineVerdicts, NearRoofOpOnAnIdleDeviceIsNotBounded) {
  // The same op, then 8000 us of host-only time: busy 4000 / 12010 = 0.333 < 0.85.
  RoofTrace t;
  BigNearRoofMm(t, 0);
  t.events += R"({"ph":"X","cat":"cpu_op","name":"aten::_host_work","pid":1,"tid":1,"ts":4010,"dur":8000,"args":{}},)";
  const report::Report r = Analyze(t.Json(true));
  EXPECT_EQ(Find(r, "ops-near-roof"), nullptr);
  EXPECT_EQ(BelowRoofFindings(r), 0);
}

// bf16 mm [1408, 4096] x [4096, 1280], 200 us. FLOPs 2*1408*1280*4096 =
// 14,763,950,080 -> 47,320.35 ns at 312e12; bytes 2*(5,767,168 + 5,242,880 +
// 1,802,240) = 25,624,576 (intensity 576.2 > ridge 153.02: compute-bound);
// 47,320.35 / 200,000 = 23.660 % of the roof (far below: < 50 %).
// Tiles of 128x128: ceil(1408/128) * ceil(1280/128) = 11 * 10 = 110 on 108 SMs:
// 2 waves, the last 2/108 = 0.0185 full; efficiency 110 / 216 = 0.509 (< 0.75).
// Saving: 200,000 - llround(200,000 * 0.2366018) = 200,000 - 47,320 = 152,680 ns.
void WaveMm(RoofTrace& t, double ts) {
  t.Op("aten::mm", ts, "[[1408, 4096], [4096, 1280]]", kBf16x2,
       "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", 200);
}

TEST(RooflineVerdicts, WaveQuantization) {
  RoofTrace t;
  WaveMm(t, 0);
  const report::Report r = Analyze(t.Json(true));
  const Finding* f = Find(r, "gemm-wave-quantization");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->verdict, Verdict::kInsufficientEvidence);
  EXPECT_NEAR(Num(*f, "pct_of_roof"), 23.660, 1e-3);
  EXPECT_EQ(Str(*f, "tile_assumed"), "128x128");
  EXPECT_EQ(Num(*f, "output_tiles"), 110);
  EXPECT_EQ(Num(*f, "num_sms"), 108);
  EXPECT_EQ(Num(*f, "waves"), 2);
  EXPECT_NEAR(Num(*f, "last_wave_fill"), 0.019, 1e-9);
  EXPECT_NEAR(Num(*f, "wave_efficiency"), 0.509, 1e-9);
  EXPECT_EQ(Num(*f, "device_ns_per_step"), 200000);
  EXPECT_EQ(Num(*f, "time_at_roof_ns_per_step"), 47320);
  EXPECT_EQ(f->saving.total_ns, 152680);
  EXPECT_TRUE(f->saving.upper_bound);
  EXPECT_EQ(BelowRoofFindings(r), 1);
  EXPECT_EQ(Find(r, "ops-near-roof"), nullptr);
  // The saving passes the critical-path invariant: at most the path's time on
  // the op's events plus what the path cannot explain.
  const double own = Num(*f, "own_critical_path_ns_per_step");
  const double unexplained = Num(*f, "critical_path_unexplained_ns_per_step");
  ASSERT_TRUE(std::isfinite(own)) << "no critical-path evidence";
  EXPECT_LE(static_cast<double>(f->saving.per_step_ns), own + unexplained + 1);
}

// bf16 mm [4096, 4095] x [4095, 4096], 1000 us: K = 4095 is not a multiple of 8.
// FLOPs 2*4096*4096*4095 = 137,405,399,040 -> 440,401.92 ns at 312e12
// (compute-bound: intensity ~1365); 44.040 % of the roof. (Its 32*32 = 1024
// tiles fill 10 waves of 108 at 0.948: no wave cause either way.)
// Saving 1,000,000 - llround(1,000,000 * 0.44040192) = 559,598 ns.
TEST(RooflineVerdicts, DimsNotAMultipleForTheTensorCores) {
  RoofTrace t;
  t.Op("aten::mm", 0, "[[4096, 4095], [4095, 4096]]", kBf16x2,
       "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", 1000);
  const report::Report r = Analyze(t.Json(true));
  const Finding* f = Find(r, "gemm-dims-unaligned");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->verdict, Verdict::kAvoidable);
  EXPECT_NEAR(Num(*f, "pct_of_roof"), 44.040, 1e-3);
  EXPECT_EQ(Num(*f, "multiple_needed"), 8);
  EXPECT_EQ(Str(*f, "unaligned_dims"), "K=4095");
  EXPECT_EQ(Str(*f, "gemm_dims"), "M=4096, N=4096, K=4095");
  EXPECT_EQ(f->saving.total_ns, 559598);
  EXPECT_EQ(BelowRoofFindings(r), 1);
}

// bf16 mm [16, 8192] x [8192, 8192], 200 us: FLOPs 2*16*8192*8192 =
// 2,147,483,648; bytes 2*(131,072 + 67,108,864 + 131,072) = 134,742,016;
// intensity 15.94 < ridge 153.02: memory-bound, min(M, N) = 16 <= 128.
// At the roof 134,742,016 / 2.039e12 = 66,082.40 ns: 33.041 % of the memory roof.
// Saving 200,000 - 66,082 = 133,918 ns.
TEST(RooflineVerdicts, TallSkinnyGemmIsMemoryBoundByShape) {
  RoofTrace t;
  t.Op("aten::mm", 0, "[[16, 8192], [8192, 8192]]", kBf16x2,
       "ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_nn", 200);
  const report::Report r = Analyze(t.Json(true));
  const Finding* f = Find(r, "gemm-memory-bound-shape");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->verdict, Verdict::kInsufficientEvidence);
  EXPECT_EQ(Str(*f, "roof"), "memory");
  EXPECT_NEAR(Num(*f, "pct_of_roof"), 33.041, 1e-3);
  EXPECT_NEAR(Num(*f, "arithmetic_intensity"), 15.938, 1e-3);
  EXPECT_NEAR(Num(*f, "ridge"), 153.016, 1e-3);
  EXPECT_EQ(f->saving.total_ns, 133918);
  EXPECT_EQ(BelowRoofFindings(r), 1);
}

// Flash attention forward, bf16 q, k, v [8, 16, 128, 64] (B, H, L, E), no
// causal flag recorded (taken as False): pairs 128 * 128 * 128 = 2,097,152,
// FLOPs 2 * pairs * (64 + 64) = 536,870,912; bytes q, k, v 3 * 2,097,152 +
// out 2,097,152 + logsumexp 128 * 128 * 4 = 65,536: 8,454,144 (intensity 63.5:
// memory-bound). At the roof 8,454,144 / 2.039e12 = 4,146.22 ns: 8.292 % of the
// memory roof over 50 us. Lq = Lk = 128 <= 256. Saving 50,000 - 4,146 = 45,854 ns.
TEST(RooflineVerdicts, ShortSequenceAttention) {
  RoofTrace t;
  t.Op("aten::_scaled_dot_product_flash_attention", 0,
       "[[8, 16, 128, 64], [8, 16, 128, 64], [8, 16, 128, 64], [], [], [], []]",
       R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", ""])",
       "pytorch_flash::flash_fwd_kernel", 50);
  const report::Report r = Analyze(t.Json(true));
  const Finding* f = Find(r, "attention-short-sequence");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(Num(*f, "pct_of_roof"), 8.292, 1e-3);
  EXPECT_EQ(Num(*f, "query_len"), 128);
  EXPECT_EQ(Num(*f, "key_len"), 128);
  EXPECT_EQ(Num(*f, "head_dim"), 64);
  EXPECT_EQ(Num(*f, "batch_heads"), 128);
  EXPECT_EQ(f->saving.total_ns, 45854);
  EXPECT_EQ(BelowRoofFindings(r), 1);
}

// The near-roof bf16 mm (4000 us), then an fp32 mm [2048, 2048] x [2048, 2048]
// on the CUDA cores (sgemm: FP32 vector peak 19.5e12), 2000 us: FLOPs
// 2 * 2048^3 = 17,179,869,184 -> 881,019 ns (compute-bound); 44.051 % of its roof.
// The other matrix rows' time: 4000 us, all BF16: share 1.0 >= 0.5.
// Saving 2,000,000 - 881,019 = 1,118,981 ns. The bf16 mm stays near its roof
// (4000 / 6000 = 0.667 of the device time, busy 6000 / 6015): ops-near-roof too.
TEST(RooflineVerdicts, Fp32OpInABf16Model) {
  RoofTrace t;
  BigNearRoofMm(t, 0);
  t.Op("aten::mm", 4010, "[[2048, 2048], [2048, 2048]]", R"(["float", "float"])",
       "ampere_sgemm_128x64_nn", 2000);
  const report::Report r = Analyze(t.Json(true));
  const Finding* f = Find(r, "fp32-in-mixed-precision");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->verdict, Verdict::kAvoidable);
  EXPECT_EQ(Str(*f, "peak_dtype"), "fp32");
  EXPECT_NEAR(Num(*f, "pct_of_roof"), 44.051, 1e-3);
  EXPECT_NEAR(Num(*f, "low_precision_share_of_matrix_time"), 1.0, 1e-9);
  EXPECT_EQ(f->saving.total_ns, 1118981);
  EXPECT_EQ(BelowRoofFindings(r), 1);  // one cause per op: not also waves / alignment
  // no-tensor-cores names the sgemm kernel too; FP32 is not this model's
  // protocol, so its "bounded" becomes a question, with the same share.
  const Finding* ntc = Find(r, "no-tensor-cores");
  ASSERT_NE(ntc, nullptr);
  EXPECT_EQ(ntc->verdict, Verdict::kInsufficientEvidence);
  EXPECT_NEAR(Num(*ntc, "low_precision_share_of_matrix_time"), 1.0, 1e-9);
  EXPECT_NE(Str(*ntc, "missing").find("on purpose"), std::string::npos);
  const Finding* b = Find(r, "ops-near-roof");
  ASSERT_NE(b, nullptr);
  EXPECT_NEAR(Num(*b, "near_roof_share_of_device_time"), 0.667, 1e-9);
  EXPECT_EQ(Num(*b, "near_roof_ops"), 1);
}

TEST(RooflineVerdicts, NoPeaksNoVerdict) {
  // The wave and near-roof ops again, in a trace without deviceProperties: no
  // peaks, no roof, no finding of either kind (never a guess).
  RoofTrace t;
  WaveMm(t, 0);
  BigNearRoofMm(t, 220);
  const report::Report r = Analyze(t.Json(false));
  EXPECT_EQ(BelowRoofFindings(r), 0);
  EXPECT_EQ(Find(r, "ops-near-roof"), nullptr);
}

TEST(RooflineVerdicts, OpWithoutAModelGetsNothing) {
  RoofTrace t;
  t.Op("aten::_fe_custom_op", 0, "[[1408, 4096], [4096, 1280]]", kBf16x2, "fe_custom_kernel", 200);
  const report::Report r = Analyze(t.Json(true));
  EXPECT_EQ(BelowRoofFindings(r), 0);
  EXPECT_EQ(Find(r, "ops-near-roof"), nullptr);
}

TEST(RooflineCauses, WavesAndMultiples) {
  // 8 * 4 tiles = 32 on 108 SMs: one wave, 32 / 108 = 0.296 full.
  const auto w = WaveFillOf(GemmShape{1, 1024, 512, 64}, 108);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->tiles, 32);
  EXPECT_EQ(w->waves, 1);
  EXPECT_NEAR(w->efficiency, 32.0 / 108.0, 1e-12);
  // A batch of 4 x 27 tiles on 108: exactly one full wave.
  const auto full = WaveFillOf(GemmShape{4, 384, 1152, 64}, 108);
  ASSERT_TRUE(full.has_value());
  EXPECT_EQ(full->tiles, 108);
  EXPECT_DOUBLE_EQ(full->efficiency, 1.0);
  EXPECT_FALSE(WaveFillOf(GemmShape{1, 128, 128, 64}, 0).has_value());
  EXPECT_EQ(TensorCoreMultiple("bf16", roofline::Dtype::kBF16), 8);
  EXPECT_EQ(TensorCoreMultiple("fp16", roofline::Dtype::kFP16), 8);
  EXPECT_EQ(TensorCoreMultiple("fp8", roofline::Dtype::kFP8), 16);
  EXPECT_EQ(TensorCoreMultiple("tf32", roofline::Dtype::kFP32), 4);
  EXPECT_EQ(TensorCoreMultiple("fp32", roofline::Dtype::kFP32), 0);
  EXPECT_EQ(TensorCoreMultiple("", roofline::Dtype::kInt8), 16);
}

// The corpus traces (../shared/corpus/hta): which roofline verdicts fire,
// checked by hand against each trace's roofline rows (see the commit message).
const fs::path kCorpus = FASTENOUGH_CORPUS;

report::Report AnalyzeFile(const fs::path& p) {
  StatusOr<report::Report> r = pipeline::AnalyzeTraces({p.string()}, pipeline::AnalyzeOptions{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : report::Report{};
}

void PrintRoofFindings(const report::Report& r) {
  for (const auto& f : r.findings) {
    bool ours = f.code == "ops-near-roof";
    for (const char* c : kBelowRoofCodes) ours = ours || f.code == c;
    if (!ours) continue;
    std::string line = f.code + " [" + VerdictName(f.verdict) + "] " + f.title + " saving/step " +
                       std::to_string(f.saving.per_step_ns);
    for (const auto& [k, v] : f.evidence) {
      if (k == "cause" || k == "input_dims" || k == "pct_of_roof") {
        line += " " + k + "=" + (std::holds_alternative<std::string>(v) ? std::get<std::string>(v)
                                  : std::holds_alternative<double>(v) ? std::to_string(std::get<double>(v))
                                                                      : std::to_string(std::get<int64_t>(v)));
      }
    }
    std::printf("  %s\n", line.c_str());
  }
}

// A100 (numSms 108): the devices are busy 438.4 ms of the 1231.5 ms span
// (35.6 %, not device-bound: no ops-near-roof, though fp32 copies run at
// 70-78 % of the memory roof); no row holds 5 % of the 438.4 ms of device time
// (the heaviest, a copy_ of [4096, 2798], 20.3 ms = 4.6 %): nothing is hot,
// no below-roof finding.
TEST(RooflineVerdictsCorpus, A100) {
  const fs::path p = kCorpus / "negative_queue_length_values_check/rank0.json.gz";
  if (!fs::exists(p)) GTEST_SKIP() << "corpus trace absent: " << p;
  const report::Report r = AnalyzeFile(p);
  PrintRoofFindings(r);
  EXPECT_EQ(Find(r, "ops-near-roof"), nullptr);
  EXPECT_EQ(BelowRoofFindings(r), 0);
}

// MI250 (one GCD: FP32 matrix 45.26e12, memory 1.6384e12 B/s, ridge 27.62;
// 149 us of device time): a 128-wide MLP trained on a batch of 5 in fp32.
// addmm [5, 128] x [128, 128] + bias[128], 24.48 us: FLOPs 2*5*128*128 + 640 =
// 164,480; bytes 4 * (640 + 16,384 + 640 + 128) = 71,168; 2.311 FLOP/byte <
// 27.62: memory-bound, M = 5 <= 128; at the roof 71,168 / 1.6384e12 =
// 43.44 ns: 0.177 % of the memory roof. The weight gradient mm [128, 5] x
// [5, 128], 12.64 us, likewise (M = N = 128, 43.13 ns at the roof). Both
// are hot (16 % and 8 % of the device time), take over 10 us a call, and are
// steady: one gemm-memory-bound-shape finding over both shapes, saving
// (24,480 + 12,640) - (43 + 43) = 37,034 ns over the 2 steady steps. The step
// is host-bound (device busy 1.6 %): not ops-near-roof.
TEST(RooflineVerdictsCorpus, MI250) {
  const fs::path p = kCorpus / "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz";
  if (!fs::exists(p)) GTEST_SKIP() << "corpus trace absent: " << p;
  const report::Report r = AnalyzeFile(p);
  PrintRoofFindings(r);
  EXPECT_EQ(Find(r, "ops-near-roof"), nullptr);
  EXPECT_EQ(BelowRoofFindings(r), 1);
  const Finding* f = Find(r, "gemm-memory-bound-shape");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Str(*f, "op"), "aten::addmm");
  EXPECT_EQ(Str(*f, "gemm_dims"), "M=5, N=128, K=128");
  EXPECT_EQ(Str(*f, "peak_dtype"), "fp32_matrix");
  EXPECT_NEAR(Num(*f, "pct_of_roof"), 0.177, 1e-9);
  EXPECT_NEAR(Num(*f, "arithmetic_intensity"), 2.311, 1e-9);
  EXPECT_EQ(Num(*f, "op_shapes"), 2);
  EXPECT_EQ(f->saving.total_ns, 37034);
}

}  // namespace
}  // namespace fastenough::findings
