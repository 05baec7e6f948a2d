#include "fastenough/roofline/dtype.h"

namespace fastenough::roofline {

Dtype DtypeFromTraceName(std::string_view n) {
  // caffe2::TypeMeta names; integer types differ by compiler ("long" / "long int").
  if (n == "float") return Dtype::kFP32;
  if (n == "double") return Dtype::kFP64;
  if (n == "c10::BFloat16") return Dtype::kBF16;
  if (n == "c10::Half") return Dtype::kFP16;
  if (n.rfind("c10::Float8_", 0) == 0) return Dtype::kFP8;
  if (n == "long int" || n == "long" || n == "int64_t" || n == "long long") return Dtype::kInt64;
  if (n == "int" || n == "int32_t") return Dtype::kInt32;
  if (n == "short int" || n == "short" || n == "int16_t") return Dtype::kInt16;
  if (n == "signed char" || n == "int8_t") return Dtype::kInt8;
  if (n == "unsigned char" || n == "uint8_t") return Dtype::kUInt8;
  if (n == "bool") return Dtype::kBool;
  if (n == "c10::complex<c10::Half>") return Dtype::kComplex32;
  if (n == "c10::complex<float>") return Dtype::kComplex64;
  if (n == "c10::complex<double>") return Dtype::kComplex128;
  return Dtype::kUnknown;
}

Dtype DtypeFromScalarTypeCode(int64_t code) {
  // c10/core/ScalarType.h, AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS order.
  switch (code) {
    case 0: return Dtype::kUInt8;
    case 1: return Dtype::kInt8;
    case 2: return Dtype::kInt16;
    case 3: return Dtype::kInt32;
    case 4: return Dtype::kInt64;
    case 5: return Dtype::kFP16;
    case 6: return Dtype::kFP32;
    case 7: return Dtype::kFP64;
    case 8: return Dtype::kComplex32;
    case 9: return Dtype::kComplex64;
    case 10: return Dtype::kComplex128;
    case 11: return Dtype::kBool;
    case 15: return Dtype::kBF16;
    case 23: case 24: case 25: case 26: return Dtype::kFP8;  // e5m2, e4m3fn, e5m2fnuz, e4m3fnuz
    default: return Dtype::kUnknown;
  }
}

int DtypeBytes(Dtype d) {
  switch (d) {
    case Dtype::kFP64: case Dtype::kInt64: case Dtype::kComplex64: return 8;
    case Dtype::kFP32: case Dtype::kTF32: case Dtype::kInt32: case Dtype::kComplex32: return 4;
    case Dtype::kBF16: case Dtype::kFP16: case Dtype::kInt16: return 2;
    case Dtype::kFP8: case Dtype::kInt8: case Dtype::kUInt8: case Dtype::kBool: return 1;
    case Dtype::kComplex128: return 16;
    case Dtype::kUnknown: return 0;
  }
  return 0;
}

const char* DtypeName(Dtype d) {
  switch (d) {
    case Dtype::kUnknown: return "unknown";
    case Dtype::kFP64: return "fp64";
    case Dtype::kFP32: return "fp32";
    case Dtype::kTF32: return "tf32";
    case Dtype::kBF16: return "bf16";
    case Dtype::kFP16: return "fp16";
    case Dtype::kFP8: return "fp8";
    case Dtype::kInt8: return "int8";
    case Dtype::kUInt8: return "uint8";
    case Dtype::kInt16: return "int16";
    case Dtype::kInt32: return "int32";
    case Dtype::kInt64: return "int64";
    case Dtype::kBool: return "bool";
    case Dtype::kComplex32: return "complex32";
    case Dtype::kComplex64: return "complex64";
    case Dtype::kComplex128: return "complex128";
  }
  return "unknown";
}

bool IsFloating(Dtype d) {
  return d == Dtype::kFP64 || d == Dtype::kFP32 || d == Dtype::kTF32 || d == Dtype::kBF16 ||
         d == Dtype::kFP16 || d == Dtype::kFP8;
}

}  // namespace fastenough::roofline
