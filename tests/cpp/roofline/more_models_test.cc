// More of the per-family formulas (backward ops, other attention and norm
// kernels) and the TF32 reading of kernel names; hand computations beside each.
#include <gtest/gtest.h>

#include "fastenough/roofline/math_dtype.h"
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

constexpr const char* kConvBwdDims =
    "[[2, 8, 16, 16], [2, 4, 16, 16], [8, 4, 3, 3], [], [], [], [], [], [], [], []]";
constexpr const char* kConvBwdTypes =
    "[\"float\", \"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", "
    "\"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\", \"\"]";

TEST(RooflineMore, ConvolutionBackward) {
  // Forward: input [2, 4, 16, 16], weight [8, 4, 3, 3], padding 1: out 16x16;
  // outputs 2*8*256 = 4,096; MACs 4,096 * 4 * 9 = 147,456.
  // All three gradients: dX 2*147,456 + dW 2*147,456 + db 4,096 = 593,920 FLOPs.
  // Bytes: dY 16,384 + (dX: weight 1,152 read + 8,192 written) + (dW: input 8,192
  // read + 1,152 written) + db 8*4 = 32 -> 35,104.
  OpWork w = Model("aten::convolution_backward", kConvBwdDims, kConvBwdTypes,
                   "[\"\", \"\", \"\", \"[8]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", "
                   "\"[0, 0]\", \"1\", \"[True, True, True]\"]");
  EXPECT_EQ(w.family, OpFamily::kConvolution);
  EXPECT_DOUBLE_EQ(w.flops, 593920);
  EXPECT_DOUBLE_EQ(w.bytes, 35104);
  // Only the weight gradient: 294,912 FLOPs; 16,384 + 9,344 = 25,728 bytes.
  OpWork dw = Model("aten::convolution_backward", kConvBwdDims, kConvBwdTypes,
                    "[\"\", \"\", \"\", \"[8]\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"False\", "
                    "\"[0, 0]\", \"1\", \"[False, True, False]\"]");
  EXPECT_DOUBLE_EQ(dw.flops, 294912);
  EXPECT_DOUBLE_EQ(dw.bytes, 25728);
}

TEST(RooflineMore, LayerNormBackward) {
  // dY, X [4, 256] fp32, mean and rstd [4, 1], weight and bias [256]:
  // read 4,096 + 4,096 + 16 + 16 + weight 1,024; write dX 4,096 + dW 1,024 + db 1,024
  // -> 15,392 bytes; FLOPs 10 * 1,024 = 10,240.
  OpWork w = Model("aten::native_layer_norm_backward",
                   "[[4, 256], [4, 256], [], [4, 1], [4, 1], [256], [256], []]",
                   "[\"float\", \"float\", \"ScalarList\", \"float\", \"float\", \"float\", "
                   "\"float\", \"\"]",
                   "[\"\", \"\", \"[256]\", \"\", \"\", \"\", \"\", \"[True, True, True]\"]");
  EXPECT_EQ(w.family, OpFamily::kNormalization);
  EXPECT_DOUBLE_EQ(w.bytes, 15392);
  EXPECT_DOUBLE_EQ(w.flops, 10240);
}

TEST(RooflineMore, EfficientAttentionBackwardCausalBshd) {
  // _efficient_attention_backward takes [B, L, H, E]: dO, q [2, 128, 8, 64], k/v
  // [2, 256, 8, 64] bf16, out, logsumexp [2, 8, 128] fp32, custom_mask_type 1 (causal).
  // pairs 2*8*128*256 = 524,288; FLOPs 2*524,288*(3*64 + 2*64) / 2 = 167,772,160.
  // Read dO 262,144 + q 262,144 + k 524,288 + v 524,288 + out 262,144 + lse 8,192
  // + seeds 16 = 1,843,216; write dq 262,144 + dk 524,288 + dv 524,288 -> 3,153,936.
  OpWork w = Model(
      "aten::_efficient_attention_backward",
      "[[2, 128, 8, 64], [2, 128, 8, 64], [2, 256, 8, 64], [2, 256, 8, 64], [], [2, 128, 8, 64], "
      "[], [], [], [], [2, 8, 128], [], [], [], [], [], [], [], [], []]",
      "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", "
      "\"c10::BFloat16\", \"\", \"\", \"Scalar\", \"Scalar\", \"float\", \"Scalar\", \"long int\", "
      "\"long int\", \"Scalar\", \"Scalar\", \"\", \"\", \"\", \"Scalar\"]",
      "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"128\", \"256\", \"\", \"0.\", \"\", \"\", "
      "\"1\", \"False\", \"\", \"\", \"\", \"False\"]");
  EXPECT_DOUBLE_EQ(w.flops, 167772160);
  EXPECT_DOUBLE_EQ(w.bytes, 3153936);
}

TEST(RooflineMore, CudnnAttentionAndMaskedSdpa) {
  // _scaled_dot_product_cudnn_attention, q/k/v [1, 4, 64, 32] fp16, compute_log_sumexp:
  // pairs 4*64*64 = 16,384; FLOPs 2*16,384*64 = 2,097,152;
  // bytes 2*(4 * 8,192) = 65,536 + logsumexp 4*64*4 = 1,024 -> 66,560.
  OpWork c = Model("aten::_scaled_dot_product_cudnn_attention",
                   "[[1, 4, 64, 32], [1, 4, 64, 32], [1, 4, 64, 32], [], [], [], [], [], []]",
                   "[\"c10::Half\", \"c10::Half\", \"c10::Half\", \"\", \"Scalar\", \"Scalar\", "
                   "\"Scalar\", \"Scalar\", \"\"]",
                   "[\"\", \"\", \"\", \"\", \"True\", \"0.\", \"False\", \"False\", \"\"]");
  EXPECT_DOUBLE_EQ(c.flops, 2097152);
  EXPECT_DOUBLE_EQ(c.bytes, 66560);
  // SDPA with a bool mask [1, 1, 4, 6]: q [1, 2, 4, 8], k/v [1, 2, 6, 8] fp32:
  // pairs 2*4*6 = 48; FLOPs 2*48*16 = 1,536; bytes 4*(64 + 96 + 96 + 64) + 24 = 1,304.
  OpWork m = Model("aten::scaled_dot_product_attention",
                   "[[1, 2, 4, 8], [1, 2, 6, 8], [1, 2, 6, 8], [1, 1, 4, 6], [], [], [], []]",
                   "[\"float\", \"float\", \"float\", \"bool\", \"Scalar\", \"Scalar\", \"\", "
                   "\"Scalar\"]",
                   "[\"\", \"\", \"\", \"\", \"0.\", \"False\", \"\", \"False\"]");
  EXPECT_DOUBLE_EQ(m.flops, 1536);
  EXPECT_DOUBLE_EQ(m.bytes, 1304);
}

TEST(RooflineMore, EmbeddingBackward) {
  // grad_output [8, 512, 768] bf16, indices [8, 512] int64, num_weights 50,000:
  // FLOPs 3,145,728 (one add per gradient element); bytes 6,291,456 + 32,768
  // + 50,000*768*2 = 76,800,000 -> 83,124,224.
  const char* dims = "[[8, 512, 768], [8, 512], [], [], []]";
  const char* types = "[\"c10::BFloat16\", \"long int\", \"Scalar\", \"Scalar\", \"Scalar\"]";
  OpWork w = Model("aten::embedding_dense_backward", dims, types,
                   "[\"\", \"\", \"50000\", \"-1\", \"False\"]");
  EXPECT_DOUBLE_EQ(w.flops, 3145728);
  EXPECT_DOUBLE_EQ(w.bytes, 83124224);
  StatusOr<OpWork> n = ModelOp("aten::embedding_dense_backward", dims, types);
  EXPECT_TRUE(IsNoModel(n.status()));
}

TEST(RooflineMore, RmsAndBatchNorm) {
  // rms_norm [16, 4096] bf16, weight [4096]: bytes 2*65,536*2 + 8,192 = 270,336;
  // FLOPs 4 * 65,536 = 262,144. _fused_rms_norm also writes rstd 16*4 = 64 bytes.
  const char* dims = "[[16, 4096], [], [4096], []]";
  const char* types = "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", \"Scalar\"]";
  const char* conc = "[\"\", \"[4096]\", \"\", \"1e-06\"]";
  OpWork r = Model("aten::rms_norm", dims, types, conc);
  EXPECT_DOUBLE_EQ(r.bytes, 270336);
  EXPECT_DOUBLE_EQ(r.flops, 262144);
  EXPECT_DOUBLE_EQ(Model("aten::_fused_rms_norm", dims, types, conc).bytes, 270400);
  // native_batch_norm [8, 64, 32, 32] fp32 with weight, bias, running stats [64]:
  // bytes 2*2,097,152 + 4*256 + save_mean/invstd 2*64*4 = 4,195,840; FLOPs 7*524,288.
  OpWork b = Model("aten::native_batch_norm",
                   "[[8, 64, 32, 32], [64], [64], [64], [64], [], [], []]",
                   "[\"float\", \"float\", \"float\", \"float\", \"float\", \"Scalar\", \"Scalar\", "
                   "\"Scalar\"]");
  EXPECT_DOUBLE_EQ(b.bytes, 4195840);
  EXPECT_DOUBLE_EQ(b.flops, 3670016);
}

TEST(RooflineMore, MatmulVectorVector) {
  // [4] . [4]: M = N = 1: 2*4 = 8 FLOPs; bytes 4*(4 + 4 + 1) = 36.
  OpWork w = Model("aten::matmul", "[[4], [4]]", "[\"float\", \"float\"]");
  EXPECT_DOUBLE_EQ(w.flops, 8);
  EXPECT_DOUBLE_EQ(w.bytes, 36);
}

TEST(RooflineMore, MathDtypeFromKernelNames) {
  OpWork fp32 = Model("aten::mm", "[[64, 4096], [4096, 100]]", "[\"float\", \"float\"]");
  EXPECT_EQ(MathDtype(fp32, {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_"
                             "align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params)",
                             "void splitKreduce_kernel<float, float, float, float, true, false>"}),
            Dtype::kTF32);
  EXPECT_EQ(MathDtype(fp32, {"sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32"}),
            Dtype::kTF32);
  EXPECT_EQ(MathDtype(fp32, {"ampere_sgemm_128x64_nn"}), Dtype::kFP32);
  EXPECT_EQ(MathDtype(fp32, {}), Dtype::kFP32);
  // Not FP32 matrix work: the op's own dtype whatever the names.
  OpWork bf16 = Model("aten::mm", "[[4, 4], [4, 4]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]");
  EXPECT_EQ(MathDtype(bf16, {"cutlass_80_tensorop_s1688gemm"}), Dtype::kBF16);
  OpWork add = Model("aten::add", "[[4], [4], []]", "[\"float\", \"float\", \"Scalar\"]");
  EXPECT_EQ(MathDtype(add, {"tf32_something"}), Dtype::kFP32);
}

}  // namespace
}  // namespace fastenough::roofline
