#include "fastenough/compare/dtype.h"

namespace fastenough::compare {

namespace {
struct DTypeInfo {
  DType type;
  size_t size;
  bool is_float;
  const char* name;
  const char* safetensors;
  const char* numpy;  // without the byte-order character
};
// Indexed by DType.
constexpr DTypeInfo kInfo[kNumDTypes] = {
    {DType::kF64, 8, true, "f64", "F64", "f8"},   {DType::kF32, 4, true, "f32", "F32", "f4"},
    {DType::kF16, 2, true, "f16", "F16", "f2"},   {DType::kBF16, 2, true, "bf16", "BF16", ""},
    {DType::kI64, 8, false, "i64", "I64", "i8"},  {DType::kI32, 4, false, "i32", "I32", "i4"},
    {DType::kI16, 2, false, "i16", "I16", "i2"},  {DType::kI8, 1, false, "i8", "I8", "i1"},
    {DType::kU64, 8, false, "u64", "U64", "u8"},  {DType::kU32, 4, false, "u32", "U32", "u4"},
    {DType::kU16, 2, false, "u16", "U16", "u2"},  {DType::kU8, 1, false, "u8", "U8", "u1"},
    {DType::kBool, 1, false, "bool", "BOOL", "b1"},
};
const DTypeInfo& Info(DType t) { return kInfo[static_cast<int>(t)]; }
}  // namespace

size_t ElementSize(DType t) { return Info(t).size; }
bool IsFloat(DType t) { return Info(t).is_float; }
const char* DTypeName(DType t) { return Info(t).name; }

std::optional<DType> DTypeFromName(std::string_view name) {
  for (const auto& i : kInfo) {
    if (name == i.name) return i.type;
  }
  return std::nullopt;
}

std::optional<DType> DTypeFromSafetensors(std::string_view name) {
  for (const auto& i : kInfo) {
    if (name == i.safetensors) return i.type;
  }
  return std::nullopt;
}

std::optional<DType> DTypeFromNumpyDescr(std::string_view descr) {
  if (descr.size() < 2) return std::nullopt;
  const char order = descr[0];
  const std::string_view rest = descr.substr(1);
  const bool one_byte = rest.size() == 2 && rest[1] == '1';
  // '<' little-endian, '|' not applicable (1-byte types), '=' native (x86/ARM: little).
  if (!(order == '<' || order == '=' || (order == '|' && one_byte))) return std::nullopt;
  for (const auto& i : kInfo) {
    if (i.numpy[0] != '\0' && rest == i.numpy) return i.type;
  }
  return std::nullopt;
}

}  // namespace fastenough::compare
