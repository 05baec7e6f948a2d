// Hand-computed answers: ULP distances of adjacent floats, the 16-bit float
// conversions, the -0.0 / NaN / infinity rules and the tolerance test.
#include "fastenough/compare/element_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace fastenough::compare {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

template <typename T>
ElementStats Cmp(DType t, const std::vector<T>& a, const std::vector<T>& b, ElementRules r = {}) {
  return CompareElements(t, reinterpret_cast<const uint8_t*>(a.data()),
                         reinterpret_cast<const uint8_t*>(b.data()), a.size(), r);
}

TEST(UlpDistance, AdjacentFloatsAreOneApart) {
  EXPECT_EQ(UlpDistance32(Bits(1.0f), Bits(std::nextafter(1.0f, 2.0f))), 1u);
  EXPECT_EQ(UlpDistance32(Bits(1.0f), Bits(std::nextafter(1.0f, 0.0f))), 1u);
  // -0 and +0 are one point; the smallest subnormals either side are 1 from it, 2 apart.
  EXPECT_EQ(UlpDistance32(Bits(-0.0f), Bits(0.0f)), 0u);
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(UlpDistance32(Bits(-tiny), Bits(tiny)), 2u);
  // 1.0f = 0x3f800000, 2.0f = 0x40000000: 2^23 floats in [1, 2).
  EXPECT_EQ(UlpDistance32(Bits(1.0f), Bits(2.0f)), 1u << 23);
  // fp16 1.0 = 0x3c00, next 0x3c01; bf16 1.0 = 0x3f80, 1.0078125 = 0x3f81.
  EXPECT_EQ(UlpDistance16(0x3c00, 0x3c01), 1u);
  EXPECT_EQ(UlpDistance16(0x3f80, 0x3f81), 1u);
  EXPECT_EQ(UlpDistance16(0x8001, 0x0001), 2u);
  EXPECT_EQ(UlpDistance64(0x3ff0000000000000ull, 0x3ff0000000000003ull), 3u);
}

TEST(HalfFloats, Conversions) {
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);              // largest half
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(HalfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(HalfToFloat(0x3c01), 1.0f + std::ldexp(1.0f, -10));
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7c00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
  EXPECT_EQ(BFloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(BFloat16ToFloat(0x3f81), 1.0078125f);
  EXPECT_EQ(BFloat16ToFloat(0xc0a0), -5.0f);
}

TEST(CompareElements, BitwiseEqualFp32) {
  std::vector<float> a = {1, 2, 3};
  ElementStats s = Cmp(DType::kF32, a, a);
  EXPECT_EQ(s.elements, 3u);
  EXPECT_EQ(s.not_bitwise, 0u);
  EXPECT_EQ(s.beyond_tolerance, 0u);
  EXPECT_EQ(s.max_abs, 0.0);
}

TEST(CompareElements, ToleranceTestAndWorstElement) {
  // atol 1e-5 + rtol 1.3e-6 * |a|: at a = 100 the bound is 1.4e-4.
  ElementRules r{{1e-5, 1.3e-6, 0}, false, false};
  std::vector<float> a = {100.0f, 100.0f, 1.0f, 5.0f};
  std::vector<float> b = {100.0001f, 100.001f, 1.0f, 4.0f};
  ElementStats s = Cmp(DType::kF32, a, b, r);
  EXPECT_EQ(s.not_bitwise, 3u);
  EXPECT_EQ(s.beyond_tolerance, 2u);  // 100.001 (diff ~1e-3) and 4 (diff 1)
  EXPECT_DOUBLE_EQ(s.max_abs, 1.0);
  EXPECT_DOUBLE_EQ(s.max_rel, 0.2);
  EXPECT_EQ(s.worst_index, 3);
  EXPECT_EQ(s.worst_a, 5.0);
  EXPECT_EQ(s.worst_b, 4.0);
  EXPECT_TRUE(s.worst_beyond);
  // 5 -> 4 in fp32: 4 is 2^22 floats below 5 (2^23 per binade, [4,5) is a quarter).
  EXPECT_EQ(s.max_ulp, 1u << 21);
}

TEST(CompareElements, UlpToleranceAccepts) {
  std::vector<float> a = {1.0f}, b = {std::nextafter(std::nextafter(1.0f, 2.0f), 2.0f)};
  ElementRules r{{0, 0, 0}, false, false};
  EXPECT_EQ(Cmp(DType::kF32, a, b, r).beyond_tolerance, 1u);
  r.tol.ulp = 2;
  ElementStats s = Cmp(DType::kF32, a, b, r);
  EXPECT_EQ(s.beyond_tolerance, 0u);
  EXPECT_EQ(s.max_ulp, 2u);
}

TEST(CompareElements, SignedZeroEqualUnlessExact) {
  std::vector<float> a = {0.0f}, b = {-0.0f};
  ElementStats s = Cmp(DType::kF32, a, b);
  EXPECT_EQ(s.not_bitwise, 1u);
  EXPECT_EQ(s.beyond_tolerance, 0u);
  EXPECT_EQ(s.max_ulp, 0u);
  ElementRules exact{{1, 1, 10}, true, false};
  EXPECT_EQ(Cmp(DType::kF32, a, b, exact).beyond_tolerance, 1u);
}

TEST(CompareElements, NanEqualOnlyWhenAsked) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {nan, 1.0f}, b = {nan, nan};
  ElementStats s = Cmp(DType::kF32, a, b);
  EXPECT_EQ(s.nan_mismatch, 2u);  // NaN vs NaN (bitwise equal, still not equal), 1 vs NaN
  EXPECT_EQ(s.beyond_tolerance, 2u);
  ElementRules r;
  r.nan_equal = true;
  s = Cmp(DType::kF32, a, b, r);
  EXPECT_EQ(s.nan_mismatch, 1u);  // 1 vs NaN stays a mismatch
  EXPECT_EQ(s.worst_index, 1);
  // A bitwise-equal block holding a NaN is still caught (the memcmp fast path).
  std::vector<float> big(10000, 1.0f);
  big[7777] = nan;
  s = Cmp(DType::kF32, big, big);
  EXPECT_EQ(s.nan_mismatch, 1u);
  EXPECT_EQ(s.worst_index, 7777);
}

TEST(CompareElements, InfinityMatchesOnlyItself) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> a = {inf, inf, 1.0f}, b = {inf, -inf, inf};
  ElementStats s = Cmp(DType::kF32, a, b);
  EXPECT_EQ(s.inf_mismatch, 2u);
  EXPECT_EQ(s.beyond_tolerance, 2u);
}

TEST(CompareElements, HalfAndBfloatTolerances) {
  // fp16: 1.0 vs 1.0009765625 (0x3c01): diff 2^-10 ~ 9.77e-4 <= 1e-5 + 1e-3.
  std::vector<uint16_t> a = {0x3c00}, b = {0x3c01};
  ElementRules f16{{1e-5, 1e-3, 0}, false, false};
  ElementStats s = Cmp(DType::kF16, a, b, f16);
  EXPECT_EQ(s.beyond_tolerance, 0u);
  EXPECT_DOUBLE_EQ(s.max_abs, std::ldexp(1.0, -10));
  EXPECT_EQ(s.max_ulp, 1u);
  // Two fp16 ULPs at 1.0 (1.953e-3) exceed it.
  b = {0x3c02};
  EXPECT_EQ(Cmp(DType::kF16, a, b, f16).beyond_tolerance, 1u);
  // bf16: 1.0 vs 1.0078125 (0x3f81) is within 1e-5 + 1.6e-2; 1.0 vs 1.03125 (0x3f84) is not.
  ElementRules bf16{{1e-5, 1.6e-2, 0}, false, false};
  std::vector<uint16_t> c = {0x3f80, 0x3f80}, d = {0x3f81, 0x3f84};
  s = Cmp(DType::kBF16, c, d, bf16);
  EXPECT_EQ(s.beyond_tolerance, 1u);
  EXPECT_EQ(s.worst_index, 1);
  EXPECT_EQ(s.max_ulp, 4u);
}

TEST(CompareElements, IntegersAreExact) {
  std::vector<int64_t> a = {1, 2, -3}, b = {1, 3, -3};
  ElementRules loose{{100, 100, 100}, false, false};
  ElementStats s = Cmp(DType::kI64, a, b, loose);
  EXPECT_EQ(s.beyond_tolerance, 1u);
  EXPECT_EQ(s.max_abs, 1.0);
  EXPECT_EQ(s.worst_index, 1);
  std::vector<uint8_t> t = {0, 1}, u = {1, 1};
  EXPECT_EQ(Cmp(DType::kBool, t, u).beyond_tolerance, 1u);
}

}  // namespace
}  // namespace fastenough::compare
