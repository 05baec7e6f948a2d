// The dtype an op's matrix work really ran in, where the kernels' names say
// more than the op's "Input type". An FP32 GEMM or convolution recorded as
// "float" runs on TF32 tensor cores when torch.backends.cuda.matmul.allow_tf32
// (or cudnn.allow_tf32) is on, and then the TF32 peak is its roof:
//   cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4     (A100, cuBLAS' CUTLASS: TF32)
//   sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize...     (H100 cuBLAS: TF32)
//   ampere_sgemm_128x64_nn                                  (FP32 on the CUDA cores)
// ROCm's hipBLASLt names its TF32-emulation (XF32) kernels with "XF32".
#pragma once

#include <string_view>
#include <vector>

#include "fastenough/roofline/op_work.h"

namespace fastenough::roofline {

// kTF32 for FP32 matrix work whose kernels' names show a TF32 path; the
// work's own dtype otherwise.
Dtype MathDtype(const OpWork& work, const std::vector<std::string_view>& kernel_names);

}  // namespace fastenough::roofline
