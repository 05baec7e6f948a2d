// The performance model per op family, every figure computed by hand in the
// comment beside it (2 FLOPs per multiply-add; bytes = inputs read once +
// outputs written once; fp32 4 bytes, bf16/fp16 2, fp8 1, int64 8).
#include <gtest/gtest.h>

#include "fastenough/roofline/op_work.h"
#include "fastenough/roofline/roofline.h"

namespace fastenough::roofline {
namespace {

OpWork Model(std::string_view name, std::string_view dims, std::string_view types,
             std::string_view concrete = {}) {
  StatusOr<OpWork> w = ModelOp(name, dims, types, concrete);
  EXPECT_TRUE(w.ok()) << name << ": " << w.status().message();
  return w.ok() ? *w : OpWork{};
}

// ---- matmul ----

TEST(RooflineMatmul, Mm) {
  // [64, 4096] x [4096, 100]: 2*64*100*4096 = 52,428,800 FLOPs;
  // bytes 4*(64*4096 + 4096*100 + 64*100) = 4*(262,144 + 409,600 + 6,400) = 2,712,576.
  OpWork w = Model("aten::mm", "[[64, 4096], [4096, 100]]", "[\"float\", \"float\"]");
  EXPECT_EQ(w.family, OpFamily::kMatmul);
  EXPECT_TRUE(w.matrix);
  EXPECT_EQ(w.dtype, Dtype::kFP32);
  EXPECT_DOUBLE_EQ(w.flops, 52428800);
  EXPECT_DOUBLE_EQ(w.bytes, 2712576);
  EXPECT_NEAR(w.intensity(), 52428800.0 / 2712576.0, 1e-12);
}

TEST(RooflineMatmul, AddmmWithBias) {
  // bias [128] + [5, 128] x [128, 128]: 2*5*128*128 = 163,840 + one add per
  // output 5*128 = 640 -> 164,480 FLOPs; bytes 4*(128 + 640 + 16,384 + 640) = 71,168.
  OpWork w = Model("aten::addmm", "[[128], [5, 128], [128, 128], [], []]",
                   "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]",
                   "[\"\", \"\", \"\", \"1\", \"1\"]");
  EXPECT_DOUBLE_EQ(w.flops, 164480);
  EXPECT_DOUBLE_EQ(w.bytes, 71168);
}

TEST(RooflineMatmul, Bmm) {
  // [8, 32, 64] x [8, 64, 16] bf16: 2*8*32*16*64 = 524,288 FLOPs;
  // bytes 2*(16,384 + 8,192 + 8*32*16 = 4,096) = 57,344.
  OpWork w = Model("aten::bmm", "[[8, 32, 64], [8, 64, 16]]",
                   "[\"c10::BFloat16\", \"c10::BFloat16\"]");
  EXPECT_EQ(w.dtype, Dtype::kBF16);
  EXPECT_DOUBLE_EQ(w.flops, 524288);
  EXPECT_DOUBLE_EQ(w.bytes, 57344);
}

TEST(RooflineMatmul, Baddbmm) {
  // [2, 3, 5] + [2, 3, 4] x [2, 4, 5] fp32: 2*2*3*5*4 = 240 + 2*3*5 = 30 -> 270;
  // bytes 4*(30 + 24 + 40 + 30) = 496.
  OpWork w = Model("aten::baddbmm", "[[2, 3, 5], [2, 3, 4], [2, 4, 5], [], []]",
                   "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]");
  EXPECT_DOUBLE_EQ(w.flops, 270);
  EXPECT_DOUBLE_EQ(w.bytes, 496);
}

TEST(RooflineMatmul, LinearThreeDimInput) {
  // x [4, 10, 32] . W[64, 32]^T + b[64], bf16: M = 40, K = 32, N = 64:
  // 2*40*64*32 = 163,840 + 40*64 = 2,560 -> 166,400 FLOPs;
  // bytes 2*(1,280 + 2,048 + 64 + 2,560) = 11,904.
  OpWork w = Model("aten::linear", "[[4, 10, 32], [64, 32], [64]]",
                   "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]");
  EXPECT_DOUBLE_EQ(w.flops, 166400);
  EXPECT_DOUBLE_EQ(w.bytes, 11904);
  // Without bias (None is [] with type ""): 163,840 FLOPs, 2*(1,280 + 2,048 + 2,560) = 11,776.
  OpWork nb = Model("aten::linear", "[[4, 10, 32], [64, 32], []]",
                    "[\"c10::BFloat16\", \"c10::BFloat16\", \"\"]");
  EXPECT_DOUBLE_EQ(nb.flops, 163840);
  EXPECT_DOUBLE_EQ(nb.bytes, 11776);
}

TEST(RooflineMatmul, MatmulBroadcastsBatchDims) {
  // [2, 1, 3, 4] x [5, 4, 6]: batch [2, 1] with [5] -> [2, 5] = 10; M 3, K 4, N 6:
  // 2*10*3*6*4 = 1,440 FLOPs; bytes 4*(24 + 120 + 10*3*6 = 180) = 1,296.
  OpWork w = Model("aten::matmul", "[[2, 1, 3, 4], [5, 4, 6]]", "[\"float\", \"float\"]");
  EXPECT_DOUBLE_EQ(w.flops, 1440);
  EXPECT_DOUBLE_EQ(w.bytes, 1296);
  // Vector x matrix: [4] x [4, 6] -> M 1: 2*6*4 = 48; bytes 4*(4 + 24 + 6) = 136.
  OpWork v = Model("aten::matmul", "[[4], [4, 6]]", "[\"float\", \"float\"]");
  EXPECT_DOUBLE_EQ(v.flops, 48);
  EXPECT_DOUBLE_EQ(v.bytes, 136);
}

TEST(RooflineMatmul, ScaledMmFp8) {
  // fp8 [16, 32] x [32, 64], fp32 0-d scales, out_dtype 15 (bf16):
  // 2*16*64*32 = 65,536 FLOPs; bytes 512 + 2,048 + 4 + 4 + 16*64*2 = 4,616.
  OpWork w = Model("aten::_scaled_mm", "[[16, 32], [32, 64], [], [], [], [], [], []]",
                   "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\", \"\", "
                   "\"\", \"Scalar\", \"Scalar\"]",
                   "[\"\", \"\", \"\", \"\", \"\", \"\", \"15\", \"False\"]");
  EXPECT_EQ(w.dtype, Dtype::kFP8);
  EXPECT_DOUBLE_EQ(w.flops, 65536);
  EXPECT_DOUBLE_EQ(w.bytes, 4616);
  EXPECT_TRUE(w.notes.empty());
}

TEST(RooflineMatmul, GroupedMmThreeDim) {
  // 4 groups of [8, 16] x [16, 32] bf16: 2*4*8*32*16 = 32,768;
  // bytes 2*(512 + 2,048 + 4*8*32 = 1,024) = 7,168.
  OpWork w = Model("aten::_grouped_mm", "[[4, 8, 16], [4, 16, 32]]",
                   "[\"c10::BFloat16\", \"c10::BFloat16\"]");
  EXPECT_DOUBLE_EQ(w.flops, 32768);
  EXPECT_DOUBLE_EQ(w.bytes, 7168);
}

TEST(RooflineMatmul, BadShapesAndNoModel) {
  StatusOr<OpWork> w = ModelOp("aten::mm", "[[4, 5], [6, 7]]", "[\"float\", \"float\"]");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(IsNoModel(w.status()));
  w = ModelOp("aten::mm", "[[4, 5]]", "[\"float\"]");
  EXPECT_EQ(w.status().code(), StatusCode::kInvalidArgument);
  w = ModelOp("aten::frobnicate", "[[4, 5]]", "[\"float\"]");
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(IsNoModel(w.status()));
  EXPECT_NE(w.status().message().find("no model"), std::string::npos);
  w = ModelOp("fused_moe_kernel", "[]", "[]");
  EXPECT_TRUE(IsNoModel(w.status()));
}

TEST(RooflineMatmul, SplitKTwoKernelsSummed) {
  // The A100 corpus trace's split-K mm: cutlass GEMM 14 us + splitKreduce 9 us
  // = 23,000 ns, summed by the caller. A100 SXM4 80GB: FP32 19.5 TFLOP/s, 2.039 TB/s.
  //   achieved 52,428,800 / 23e-6 = 2.27951304e12 FLOP/s = 11.689811 % of 19.5e12
  //   2,712,576 / 23e-6 = 1.17938087e11 B/s = 5.784114 % of 2.039e12
  //   intensity 19.328 > ridge 19.5 / 2.039 = 9.5635: compute-bound
  //   time at roof 52,428,800 / 19.5e12 = 2.688656e-6 s = 11.689811 % of 23 us
  OpWork w = Model("aten::mm", "[[64, 4096], [4096, 100]]", "[\"float\", \"float\"]");
  StatusOr<RooflinePoint> p = Evaluate(w, 14000 + 9000, 19.5e12, 2.039e12);
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(p->achieved_flop_per_s, 2.27951304e12, 1e4);
  EXPECT_NEAR(p->achieved_bytes_per_s, 1.17938087e11, 1e3);
  EXPECT_NEAR(p->pct_of_compute_peak, 11.689811, 1e-5);
  EXPECT_NEAR(p->pct_of_memory_peak, 5.784114, 1e-5);
  EXPECT_NEAR(p->ridge, 9.563511, 1e-5);
  EXPECT_EQ(p->bound, Bound::kCompute);
  EXPECT_NEAR(p->time_at_roof_s, 2.688656e-6, 1e-11);
  EXPECT_NEAR(p->pct_of_roof, 11.689811, 1e-5);
  // Charging the GEMM kernel alone (14 us) would overstate it: 19.204 %.
  StatusOr<RooflinePoint> one = Evaluate(w, 14000, 19.5e12, 2.039e12);
  EXPECT_NEAR(one->pct_of_compute_peak, 19.204690, 1e-5);
}

TEST(RooflineEvaluate, RejectsBadInput) {
  OpWork w;
  w.flops = 10;
  w.bytes = 10;
  EXPECT_EQ(Evaluate(w, 0, 1e12, 1e12).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Evaluate(w, -5, 1e12, 1e12).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Evaluate(w, 10, 0, 1e12).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Evaluate(OpWork{}, 10, 1e12, 1e12).status().code(), StatusCode::kInvalidArgument);
}

// ---- attention ----

constexpr const char* kSdpaTypesBf16 =
    "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"Scalar\", \"Scalar\", "
    "\"\", \"Scalar\"]";

TEST(RooflineAttention, SdpaForward) {
  // q [2, 8, 128, 64], k/v [2, 8, 256, 64] bf16, not causal:
  // pairs 2*8*128*256 = 524,288; FLOPs 2*524,288*(64 + 64) = 134,217,728;
  // bytes 2*(131,072 + 262,144 + 262,144 + out 131,072) = 1,572,864.
  OpWork w = Model("aten::scaled_dot_product_attention",
                   "[[2, 8, 128, 64], [2, 8, 256, 64], [2, 8, 256, 64], [], [], [], [], []]",
                   kSdpaTypesBf16, "[\"\", \"\", \"\", \"\", \"0.\", \"False\", \"\", \"False\"]");
  EXPECT_EQ(w.family, OpFamily::kAttention);
  EXPECT_DOUBLE_EQ(w.flops, 134217728);
  EXPECT_DOUBLE_EQ(w.bytes, 1572864);
  // Causal halves the FLOPs (67,108,864), not the bytes.
  OpWork c = Model("aten::scaled_dot_product_attention",
                   "[[2, 8, 128, 64], [2, 8, 256, 64], [2, 8, 256, 64], [], [], [], [], []]",
                   kSdpaTypesBf16, "[\"\", \"\", \"\", \"\", \"0.\", \"True\", \"\", \"False\"]");
  EXPECT_DOUBLE_EQ(c.flops, 67108864);
  EXPECT_DOUBLE_EQ(c.bytes, 1572864);
  // Without Concrete Inputs is_causal is unknown: taken as False, with a note.
  OpWork u = Model("aten::scaled_dot_product_attention",
                   "[[2, 8, 128, 64], [2, 8, 256, 64], [2, 8, 256, 64], [], [], [], [], []]",
                   kSdpaTypesBf16);
  EXPECT_DOUBLE_EQ(u.flops, 134217728);
  ASSERT_EQ(u.notes.size(), 1u);
}

TEST(RooflineAttention, GqaCausalForward) {
  // q [1, 32, 512, 128], k/v [1, 8, 512, 128] (GQA, 4 query heads per kv head), causal:
  // pairs 32*512*512 = 8,388,608; FLOPs 2*8,388,608*256 / 2 = 2,147,483,648;
  // bytes 2*(2,097,152 + 524,288 + 524,288 + out 2,097,152) = 10,485,760.
  OpWork w = Model("aten::scaled_dot_product_attention",
                   "[[1, 32, 512, 128], [1, 8, 512, 128], [1, 8, 512, 128], [], [], [], [], []]",
                   kSdpaTypesBf16, "[\"\", \"\", \"\", \"\", \"0.\", \"True\", \"\", \"True\"]");
  EXPECT_DOUBLE_EQ(w.flops, 2147483648.0);
  EXPECT_DOUBLE_EQ(w.bytes, 10485760);
  // The flash kernel also writes the fp32 logsumexp [1, 32, 512]: + 65,536 bytes.
  OpWork f = Model("aten::_scaled_dot_product_flash_attention",
                   "[[1, 32, 512, 128], [1, 8, 512, 128], [1, 8, 512, 128], [], [], [], []]",
                   "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "
                   "\"Scalar\", \"Scalar\", \"\"]",
                   "[\"\", \"\", \"\", \"0.\", \"True\", \"False\", \"\"]");
  EXPECT_DOUBLE_EQ(f.flops, 2147483648.0);
  EXPECT_DOUBLE_EQ(f.bytes, 10485760 + 65536);
  // Heads that do not divide: 6 query heads over 4 kv heads.
  StatusOr<OpWork> bad = ModelOp(
      "aten::scaled_dot_product_attention",
      "[[1, 6, 16, 8], [1, 4, 16, 8], [1, 4, 16, 8], [], [], [], [], []]", kSdpaTypesBf16);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST(RooflineAttention, GqaCausalFlashBackward) {
  // _scaled_dot_product_flash_attention_backward(grad_out, q, k, v, out, logsumexp,
  //   cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, philox_seed, philox_offset, scale)
  // Same shapes as above, causal: FLOPs 2*8,388,608*(3*128 + 2*128) / 2 = 5,368,709,120
  // (2.5 x the forward). Bytes read: grad_out 4,194,304 + q 4,194,304 + k 1,048,576
  // + v 1,048,576 + out 4,194,304 + lse 65,536 + two int64 seeds 16 = 14,745,616;
  // written dq 4,194,304 + dk 1,048,576 + dv 1,048,576 = 6,291,456 -> 21,037,072.
  OpWork w = Model(
      "aten::_scaled_dot_product_flash_attention_backward",
      "[[1, 32, 512, 128], [1, 32, 512, 128], [1, 8, 512, 128], [1, 8, 512, 128], "
      "[1, 32, 512, 128], [1, 32, 512], [], [], [], [], [], [], [], [], []]",
      "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
      "\"c10::BFloat16\", \"float\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
      "\"long int\", \"long int\", \"\"]",
      "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"512\", \"512\", \"0.\", \"True\", \"\", "
      "\"\", \"\"]");
  EXPECT_DOUBLE_EQ(w.flops, 5368709120.0);
  EXPECT_DOUBLE_EQ(w.bytes, 21037072);
}

TEST(RooflineAttention, FlashForwardBshdAndVarlen) {
  // _flash_attention_forward takes [B, L, H, E]: q [2, 128, 8, 64], k/v [2, 256, 8, 64],
  // causal: 2*(2*8*128*256)*(128) / 2 = 67,108,864 FLOPs; bytes 1,572,864 + lse 2*8*128*4 = 8,192.
  const char* types =
      "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", \"\", \"Scalar\", "
      "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]";
  OpWork w = Model("aten::_flash_attention_forward",
                   "[[2, 128, 8, 64], [2, 256, 8, 64], [2, 256, 8, 64], [], [], [], [], [], [], [], []]",
                   types, "[\"\", \"\", \"\", \"\", \"\", \"128\", \"256\", \"0.\", \"True\", \"False\", \"\"]");
  EXPECT_DOUBLE_EQ(w.flops, 67108864);
  EXPECT_DOUBLE_EQ(w.bytes, 1572864 + 8192);
  // Variable-length batches (cum_seq_q is a tensor): the lengths are values, not shapes.
  StatusOr<OpWork> v = ModelOp(
      "aten::_flash_attention_forward",
      "[[384, 8, 64], [384, 8, 64], [384, 8, 64], [3], [3], [], [], [], [], [], []]",
      "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"int\", \"int\", \"Scalar\", "
      "\"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]");
  ASSERT_FALSE(v.ok());
  EXPECT_TRUE(IsNoModel(v.status()));
}

// ---- convolution ----

// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
constexpr const char* kConvTypes =
    "[\"%s\", \"%s\", \"%s\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
    "\"ScalarList\", \"Scalar\"]";

std::string ConvTypes(const char* t, bool bias) {
  char buf[512];
  snprintf(buf, sizeof buf, kConvTypes, t, t, bias ? t : "");
  return buf;
}

TEST(RooflineConvolution, StridedWithBias) {
  // input [8, 3, 224, 224], weight [64, 3, 7, 7], bias [64], stride 2, padding 3:
  // out = floor((224 + 6 - 6 - 1) / 2) + 1 = 112; outputs 8*64*112*112 = 6,422,528;
  // MACs 6,422,528 * 3 * 49 = 944,111,616; FLOPs 2*MACs + bias 6,422,528 = 1,894,645,760;
  // bytes 4*(1,204,224 + 9,408 + 64 + 6,422,528) = 30,544,896.
  OpWork w = Model("aten::convolution",
                   "[[8, 3, 224, 224], [64, 3, 7, 7], [64], [], [], [], [], [], []]",
                   ConvTypes("float", true),
                   "[\"\", \"\", \"\", \"[2, 2]\", \"[3, 3]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]");
  EXPECT_EQ(w.family, OpFamily::kConvolution);
  EXPECT_DOUBLE_EQ(w.flops, 1894645760.0);
  EXPECT_DOUBLE_EQ(w.bytes, 30544896);
}

TEST(RooflineConvolution, Dilated) {
  // input [1, 16, 32, 32], weight [16, 16, 3, 3], dilation 2, padding 0, bf16:
  // out = floor((32 - 2*2 - 1) / 1) + 1 = 28; outputs 16*28*28 = 12,544;
  // FLOPs 2 * 12,544 * 16 * 9 = 3,612,672; bytes 2*(16,384 + 2,304 + 12,544) = 62,464.
  // _convolution has 4 more trailing arguments (benchmark, deterministic, cudnn_enabled, allow_tf32).
  OpWork w = Model(
      "aten::_convolution",
      "[[1, 16, 32, 32], [16, 16, 3, 3], [], [], [], [], [], [], [], [], [], [], []]",
      "[\"c10::BFloat16\", \"c10::BFloat16\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
      "\"Scalar\", \"ScalarList\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\"]",
      "[\"\", \"\", \"\", \"[1, 1]\", \"[0, 0]\", \"[2, 2]\", \"False\", \"[0, 0]\", \"1\", "
      "\"False\", \"False\", \"True\", \"True\"]");
  EXPECT_DOUBLE_EQ(w.flops, 3612672);
  EXPECT_DOUBLE_EQ(w.bytes, 62464);
}

TEST(RooflineConvolution, Depthwise) {
  // input [4, 32, 56, 56], weight [32, 1, 3, 3], groups 32, padding 1, fp16:
  // out 56; outputs 4*32*3,136 = 401,408; FLOPs 2 * 401,408 * 1 * 9 = 7,225,344;
  // bytes 2*(401,408 + 288 + 401,408) = 1,606,208.
  OpWork w = Model("aten::convolution",
                   "[[4, 32, 56, 56], [32, 1, 3, 3], [], [], [], [], [], [], []]",
                   ConvTypes("c10::Half", false),
                   "[\"\", \"\", \"\", \"[1]\", \"[1]\", \"[1]\", \"False\", \"[0]\", \"32\"]");
  EXPECT_DOUBLE_EQ(w.flops, 7225344);
  EXPECT_DOUBLE_EQ(w.bytes, 1606208);
}

TEST(RooflineConvolution, Transposed) {
  // input [2, 16, 8, 8], weight [16, 8, 4, 4] (Cin 16, Cout 8), stride 2, padding 1:
  // out = (8 - 1)*2 - 2 + 3 + 0 + 1 = 16; every input element scatters to 8*16 outputs:
  // MACs 2*16*64*8*16 = 262,144 (= 2*8*16*16 outputs x 16*16/4 taps each);
  // FLOPs 524,288; bytes 4*(2,048 + 2,048 + 2*8*16*16 = 4,096) = 32,768.
  OpWork w = Model("aten::convolution",
                   "[[2, 16, 8, 8], [16, 8, 4, 4], [], [], [], [], [], [], []]",
                   ConvTypes("float", false),
                   "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"True\", \"[0, 0]\", \"1\"]");
  EXPECT_DOUBLE_EQ(w.flops, 524288);
  EXPECT_DOUBLE_EQ(w.bytes, 32768);
}

TEST(RooflineConvolution, OneDimAndThreeDim) {
  // conv1d(input [1, 4, 10], weight [6, 4, 3]): out 8; FLOPs 2*6*8*4*3 = 1,152;
  // bytes 4*(40 + 72 + 48) = 640.
  OpWork a = Model("aten::conv1d", "[[1, 4, 10], [6, 4, 3], [], [], [], [], []]",
                   "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
                   "\"Scalar\"]",
                   "[\"\", \"\", \"\", \"[1]\", \"[0]\", \"[1]\", \"1\"]");
  EXPECT_DOUBLE_EQ(a.flops, 1152);
  EXPECT_DOUBLE_EQ(a.bytes, 640);
  // 3-d: input [1, 2, 4, 4, 4], weight [3, 2, 2, 2, 2], stride 2: out 2x2x2;
  // outputs 3*8 = 24; FLOPs 2*24*2*8 = 768; bytes 4*(128 + 48 + 24) = 800.
  OpWork b = Model("aten::convolution", "[[1, 2, 4, 4, 4], [3, 2, 2, 2, 2], [], [], [], [], [], [], []]",
                   ConvTypes("float", false),
                   "[\"\", \"\", \"\", \"[2, 2, 2]\", \"[0, 0, 0]\", \"[1, 1, 1]\", \"False\", "
                   "\"[0, 0, 0]\", \"1\"]");
  EXPECT_DOUBLE_EQ(b.flops, 768);
  EXPECT_DOUBLE_EQ(b.bytes, 800);
}

TEST(RooflineConvolution, NeedsConcreteInputs) {
  StatusOr<OpWork> w = ModelOp("aten::convolution",
                               "[[8, 3, 224, 224], [64, 3, 7, 7], [64], [], [], [], [], [], []]",
                               ConvTypes("float", true));
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(IsNoModel(w.status()));
  // Channels that do not fit the groups: bad shapes.
  w = ModelOp("aten::convolution", "[[1, 6, 8, 8], [4, 4, 3, 3], [], [], [], [], [], [], []]",
              ConvTypes("float", false),
              "[\"\", \"\", \"\", \"[1]\", \"[0]\", \"[1]\", \"False\", \"[0]\", \"1\"]");
  EXPECT_EQ(w.status().code(), StatusCode::kInvalidArgument);
}

// ---- bytes-bound families ----

TEST(RooflineElementwise, BinaryAndInplace) {
  // add [4096, 2862] + [4096, 2862] fp32: 11,722,752 elements;
  // bytes 3 * 4 * 11,722,752 = 140,673,024; FLOPs 11,722,752.
  OpWork w = Model("aten::add", "[[4096, 2862], [4096, 2862], []]",
                   "[\"float\", \"float\", \"Scalar\"]");
  EXPECT_EQ(w.family, OpFamily::kElementwise);
  EXPECT_FALSE(w.matrix);
  EXPECT_DOUBLE_EQ(w.flops, 11722752);
  EXPECT_DOUBLE_EQ(w.bytes, 140673024);
  // add_ [128, 128] += [128, 128]: read both, write self: 3 * 65,536 = 196,608.
  OpWork i = Model("aten::add_", "[[128, 128], [128, 128], []]", "[\"float\", \"float\", \"Scalar\"]");
  EXPECT_DOUBLE_EQ(i.bytes, 196608);
  EXPECT_DOUBLE_EQ(i.flops, 16384);
  // mul(self [128, 2862], other 0-d double, out=[128, 2862]): read 1,465,344 + 8,
  // write out 1,465,344 -> 2,930,696 (the out tensor is not read).
  OpWork o = Model("aten::mul", "[[128, 2862], [], [128, 2862]]", "[\"float\", \"double\", \"float\"]");
  EXPECT_DOUBLE_EQ(o.bytes, 2930696);
  EXPECT_EQ(o.dtype, Dtype::kFP32);
  // Broadcast [4, 1, 8] + [3, 1] -> [4, 3, 8] = 96: bytes 4*(32 + 3 + 96) = 524.
  OpWork b = Model("aten::add", "[[4, 1, 8], [3, 1], []]", "[\"float\", \"float\", \"Scalar\"]");
  EXPECT_DOUBLE_EQ(b.bytes, 524);
  // Comparison writes bool: gt [1000] > [1000] fp32: 4,000 + 4,000 + 1,000 = 9,000.
  OpWork g = Model("aten::gt", "[[1000], [1000]]", "[\"float\", \"float\"]");
  EXPECT_DOUBLE_EQ(g.bytes, 9000);
}

TEST(RooflineElementwise, Reduction) {
  // sum [5, 128] over dim 0, keepdim: read 640*4, write 128*4 = 3,072; FLOPs 640.
  OpWork w = Model("aten::sum", "[[5, 128], [], [], []]",
                   "[\"float\", \"ScalarList\", \"Scalar\", \"\"]",
                   "[\"\", \"[0]\", \"True\", \"\"]");
  EXPECT_EQ(w.family, OpFamily::kReduction);
  EXPECT_DOUBLE_EQ(w.bytes, 3072);
  EXPECT_DOUBLE_EQ(w.flops, 640);
  // mean with dim [] reduces everything: 2,560 + 4 = 2,564.
  OpWork m = Model("aten::mean", "[[5, 128], [], [], [], []]",
                   "[\"float\", \"ScalarList\", \"Scalar\", \"\", \"float\"]",
                   "[\"\", \"[]\", \"False\", \"\", \"\"]");
  EXPECT_DOUBLE_EQ(m.bytes, 2564);
}

TEST(RooflineElementwise, LayerNormAndSoftmaxBytes) {
  // native_layer_norm [8, 512, 1024] bf16 over [1024], weight and bias [1024]:
  // 4,194,304 elements, 4,096 rows; bytes 2*4,194,304*2 (in + out) + 2,048 + 2,048
  // + mean and rstd fp32 2*4,096*4 = 32,768 -> 16,814,080; FLOPs 7 * 4,194,304 = 29,360,128.
  OpWork w = Model("aten::native_layer_norm", "[[8, 512, 1024], [], [1024], [1024], []]",
                   "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", \"c10::BFloat16\", "
                   "\"Scalar\"]",
                   "[\"\", \"[1024]\", \"\", \"\", \"1e-05\"]");
  EXPECT_EQ(w.family, OpFamily::kNormalization);
  EXPECT_DOUBLE_EQ(w.bytes, 16814080);
  EXPECT_DOUBLE_EQ(w.flops, 29360128);
  // Without Concrete Inputs the weight gives the normalised shape: same figures.
  OpWork n = Model("aten::native_layer_norm", "[[8, 512, 1024], [], [1024], [1024], []]",
                   "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", \"c10::BFloat16\", "
                   "\"Scalar\"]");
  EXPECT_DOUBLE_EQ(n.bytes, 16814080);
  // _softmax [64, 1024] bf16: read + write 2 * 65,536 * 2 = 262,144; FLOPs 5 * 65,536.
  OpWork s = Model("aten::_softmax", "[[64, 1024], [], []]",
                   "[\"c10::BFloat16\", \"Scalar\", \"Scalar\"]", "[\"\", \"-1\", \"False\"]");
  EXPECT_EQ(s.family, OpFamily::kSoftmax);
  EXPECT_DOUBLE_EQ(s.bytes, 262144);
  EXPECT_DOUBLE_EQ(s.flops, 327680);
  // half_to_float: the output is fp32: 131,072 + 262,144 = 393,216.
  OpWork h = Model("aten::_softmax", "[[64, 1024], [], []]",
                   "[\"c10::BFloat16\", \"Scalar\", \"Scalar\"]", "[\"\", \"-1\", \"True\"]");
  EXPECT_DOUBLE_EQ(h.bytes, 393216);
  // _softmax_backward_data fp32: read grad and output, write grad_input: 3 * 262,144.
  OpWork b = Model("aten::_softmax_backward_data", "[[64, 1024], [64, 1024], [], []]",
                   "[\"float\", \"float\", \"Scalar\", \"Scalar\"]", "[\"\", \"\", \"-1\", \"6\"]");
  EXPECT_DOUBLE_EQ(b.bytes, 786432);
}

TEST(RooflineEmbedding, Lookup) {
  // embedding(weight [50000, 768] bf16, indices [8, 512] int64): 4,096 lookups;
  // bytes 4,096*8 (indices) + 4,096*768*2 (rows read) + 4,096*768*2 (output) = 12,615,680; 0 FLOPs.
  OpWork w = Model("aten::embedding", "[[50000, 768], [8, 512], [], [], []]",
                   "[\"c10::BFloat16\", \"long int\", \"Scalar\", \"Scalar\", \"Scalar\"]");
  EXPECT_EQ(w.family, OpFamily::kEmbedding);
  EXPECT_DOUBLE_EQ(w.flops, 0);
  EXPECT_DOUBLE_EQ(w.bytes, 12615680);
  // At 100 us on an H100 SXM (3.35 TB/s): 12,615,680 / 1e-4 = 1.261568e11 B/s = 3.765875 %.
  StatusOr<RooflinePoint> p = Evaluate(w, 100000, 989.5e12, 3.35e12);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->bound, Bound::kMemory);
  EXPECT_NEAR(p->pct_of_memory_peak, 3.765875, 1e-5);
  EXPECT_NEAR(p->time_at_roof_s, 12615680 / 3.35e12, 1e-12);
}

TEST(RooflineOpCall, MalformedArgumentLists) {
  EXPECT_EQ(ParseOpCall("aten::mm", "not json", "[]").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseOpCall("aten::mm", "[[1, 2]]", "[\"float\", \"float\"]").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseOpCall("aten::mm", "[[1, -2]]", "[\"float\"]").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseOpCall("aten::mm", "[[1, 2]]", "[\"float\"]", "[\"\", \"\"]").status().code(),
            StatusCode::kInvalidArgument);
  // A dim above 2^40 is no real tensor (and would overflow the arithmetic).
  EXPECT_EQ(ParseOpCall("aten::mm", "[[2199023255553, 2]]", "[\"float\"]").status().code(),
            StatusCode::kInvalidArgument);
  // Out-of-range convolution parameters are bad shapes, not an overflow.
  StatusOr<OpWork> conv = ModelOp(
      "aten::convolution", "[[1, 4, 8, 8], [4, 4, 3, 3], [], [], [], [], [], [], []]",
      "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", "
      "\"ScalarList\", \"Scalar\"]",
      "[\"\", \"\", \"\", \"[9223372036854775807]\", \"[0]\", \"[1]\", \"False\", \"[0]\", "
      "\"1\"]");
  EXPECT_EQ(conv.status().code(), StatusCode::kInvalidArgument);
  StatusOr<OpCall> c = ParseOpCall("aten::cat", "[[[5, 128], [5, 128]], []]",
                                   "[\"TensorList\", \"Scalar\"]", "[\"\", \"0\"]");
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->args[0].list_dims.size(), 2u);
  EXPECT_FALSE(c->args[0].is_tensor());
  EXPECT_EQ(c->args[1].int_value(), 0);
}

}  // namespace
}  // namespace fastenough::roofline
