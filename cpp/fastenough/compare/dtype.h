// Element types that `fastenough compare` reads, their names in the safetensors
// and numpy formats, and the conversions of the 16-bit floats to float.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace fastenough::compare {

enum class DType : uint8_t {
  kF64, kF32, kF16, kBF16,
  kI64, kI32, kI16, kI8,
  kU64, kU32, kU16, kU8,
  kBool,
};
inline constexpr int kNumDTypes = 13;

size_t ElementSize(DType t);
bool IsFloat(DType t);
// Short lower-case name used in reports and options: "f32", "bf16", "i64", "bool".
const char* DTypeName(DType t);
std::optional<DType> DTypeFromName(std::string_view name);
// safetensors header names: "F32", "BF16", "I64", "BOOL", ...
std::optional<DType> DTypeFromSafetensors(std::string_view name);
// numpy descr strings of little-endian (or byte-order-free) types: "<f4", "|b1", ...
std::optional<DType> DTypeFromNumpyDescr(std::string_view descr);

// IEEE binary16 -> float, exact (every half is a float), subnormals included.
inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf / NaN (payload kept)
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);  // rebias 15 -> 127
  } else if (mant == 0) {
    bits = sign;  // +-0
  } else {
    // Subnormal: value = mant * 2^-24; normalise the mantissa.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// bfloat16 is the top half of a float32.
inline float BFloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace fastenough::compare
