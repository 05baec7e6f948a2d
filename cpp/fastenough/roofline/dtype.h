// Element types as a trace names them ("Input type" of a cpu op), and the
// byte size the performance model charges for one element.
//   "Input type": ["c10::BFloat16", "float", "long int", "Scalar", ""]
// A 0-d tensor carries its dtype name too; "Scalar", "ScalarList",
// "TensorList" and "" (None, or a non-tensor argument) are not dtypes.
#pragma once

#include <cstdint>
#include <string_view>

namespace fastenough::roofline {

enum class Dtype : uint8_t {
  kUnknown,
  kFP64,
  kFP32,
  kTF32,  // never in a trace: FP32 tensors on the TF32 tensor-core path (caller's choice)
  kBF16,
  kFP16,
  kFP8,  // e4m3fn, e5m2 and the fnuz variants
  kInt8,
  kUInt8,
  kInt16,
  kInt32,
  kInt64,
  kBool,
  kComplex32,
  kComplex64,
  kComplex128,
};

// "float" -> kFP32, "c10::BFloat16" -> kBF16, "long int" -> kInt64; kUnknown
// for anything that is not a tensor element type.
Dtype DtypeFromTraceName(std::string_view name);
// c10::ScalarType codes as Concrete Inputs write them for a dtype argument
// (e.g. _scaled_mm's out_dtype "15" = BFloat16); kUnknown for others.
Dtype DtypeFromScalarTypeCode(int64_t code);
// Bytes per element; 0 for kUnknown.
int DtypeBytes(Dtype d);
// "fp32", "bf16", ... (the names used in docs/roofline.md and --peaks files).
const char* DtypeName(Dtype d);
bool IsFloating(Dtype d);

}  // namespace fastenough::roofline
