#include "fastenough/roofline/math_dtype.h"

#include <cctype>
#include <string>

namespace fastenough::roofline {

namespace {

bool ShowsTf32(std::string_view name) {
  std::string s;
  s.reserve(name.size());
  for (char ch : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  // "tf32" / "xf32" spelled out, or CUTLASS's tensor-op FP32 GEMMs, whose
  // mma shapes 16x8x8 and 16x8x4 exist for TF32 only.
  return s.find("tf32") != std::string::npos || s.find("xf32") != std::string::npos ||
         s.find("tensorop_s1688") != std::string::npos ||
         s.find("tensorop_s1684") != std::string::npos;
}

}  // namespace

Dtype MathDtype(const OpWork& work, const std::vector<std::string_view>& kernel_names) {
  if (!work.matrix || work.dtype != Dtype::kFP32) return work.dtype;
  for (std::string_view k : kernel_names) {
    if (ShowsTf32(k)) return Dtype::kTF32;
  }
  return work.dtype;
}

}  // namespace fastenough::roofline
