#include "fastenough/compare/element_compare.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace fastenough::compare {

namespace {
template <typename U>
uint64_t UlpDistance(U a, U b) {
  constexpr U kSign = static_cast<U>(U{1} << (sizeof(U) * 8 - 1));
  const U ma = a & static_cast<U>(~kSign), mb = b & static_cast<U>(~kSign);
  // Same sign: the magnitudes' distance; opposite signs: both distances to zero.
  if ((a & kSign) == (b & kSign)) return ma > mb ? ma - mb : mb - ma;
  return static_cast<uint64_t>(ma) + static_cast<uint64_t>(mb);
}

// Per dtype: the bit pattern type, NaN test on bits, and the value as double.
template <DType T>
struct Traits;
template <>
struct Traits<DType::kF64> {
  using Bits = uint64_t;
  static constexpr bool kFloat = true;
  static bool IsNan(Bits x) { return (x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
  static double Value(Bits x) {
    double d;
    std::memcpy(&d, &x, 8);
    return d;
  }
};
template <>
struct Traits<DType::kF32> {
  using Bits = uint32_t;
  static constexpr bool kFloat = true;
  static bool IsNan(Bits x) { return (x & 0x7fffffffu) > 0x7f800000u; }
  static double Value(Bits x) {
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }
};
template <>
struct Traits<DType::kF16> {
  using Bits = uint16_t;
  static constexpr bool kFloat = true;
  static bool IsNan(Bits x) { return (x & 0x7fffu) > 0x7c00u; }
  static double Value(Bits x) { return HalfToFloat(x); }
};
template <>
struct Traits<DType::kBF16> {
  using Bits = uint16_t;
  static constexpr bool kFloat = true;
  static bool IsNan(Bits x) { return (x & 0x7fffu) > 0x7f80u; }
  static double Value(Bits x) { return BFloat16ToFloat(x); }
};
template <typename I>
struct IntTraits {
  using Bits = I;
  static constexpr bool kFloat = false;
  static bool IsNan(Bits) { return false; }
  static double Value(Bits x) { return static_cast<double>(x); }
};
template <> struct Traits<DType::kI64> : IntTraits<int64_t> {};
template <> struct Traits<DType::kI32> : IntTraits<int32_t> {};
template <> struct Traits<DType::kI16> : IntTraits<int16_t> {};
template <> struct Traits<DType::kI8> : IntTraits<int8_t> {};
template <> struct Traits<DType::kU64> : IntTraits<uint64_t> {};
template <> struct Traits<DType::kU32> : IntTraits<uint32_t> {};
template <> struct Traits<DType::kU16> : IntTraits<uint16_t> {};
template <> struct Traits<DType::kU8> : IntTraits<uint8_t> {};
template <> struct Traits<DType::kBool> : IntTraits<uint8_t> {};

// Elements per block: equal blocks (the common case when outputs agree) cost
// one memcmp and, for floats without nan_equal, one NaN scan.
constexpr uint64_t kBlock = 4096;

template <DType T>
class Comparer {
  using Tr = Traits<T>;
  using Bits = typename Tr::Bits;

 public:
  explicit Comparer(const ElementRules& r) : rules_(r) {}

  void Run(const uint8_t* a, const uint8_t* b, uint64_t n) {
    s_.elements = n;
    for (uint64_t begin = 0; begin < n; begin += kBlock) {
      const uint64_t len = std::min(kBlock, n - begin);
      const uint8_t* pa = a + begin * sizeof(Bits);
      const uint8_t* pb = b + begin * sizeof(Bits);
      if (std::memcmp(pa, pb, len * sizeof(Bits)) == 0) {
        if constexpr (Tr::kFloat) {
          if (!rules_.nan_equal) EqualBlockNans(pa, begin, len);
        }
        continue;
      }
      DiffBlock(pa, pb, begin, len);
    }
  }
  const ElementStats& stats() const { return s_; }

 private:
  static Bits Load(const uint8_t* p, uint64_t i) {
    Bits x;
    std::memcpy(&x, p + i * sizeof(Bits), sizeof(Bits));
    return x;
  }

  void EqualBlockNans(const uint8_t* p, uint64_t begin, uint64_t len) {
    bool any = false;
    for (uint64_t i = 0; i < len; ++i) any |= Tr::IsNan(Load(p, i));
    if (!any) return;
    for (uint64_t i = 0; i < len; ++i) {
      if (Tr::IsNan(Load(p, i))) NanMismatch(begin + i, Load(p, i), Load(p, i));
    }
  }

  void NanMismatch(uint64_t index, Bits x, Bits y) {
    ++s_.nan_mismatch;
    Beyond(index, Tr::Value(x), Tr::Value(y), std::numeric_limits<double>::infinity());
  }

  // badness orders the elements beyond tolerance: NaN/inf mismatches are +inf.
  void Beyond(uint64_t index, double a, double b, double badness) {
    ++s_.beyond_tolerance;
    if (!s_.worst_beyond || badness > worst_badness_) {
      s_.worst_beyond = true;
      worst_badness_ = badness;
      Worst(index, a, b);
    }
  }
  void Worst(uint64_t index, double a, double b) {
    s_.worst_index = static_cast<int64_t>(index);
    s_.worst_a = a;
    s_.worst_b = b;
  }

  void DiffBlock(const uint8_t* pa, const uint8_t* pb, uint64_t begin, uint64_t len) {
    const Tolerance& tol = rules_.tol;
    for (uint64_t i = 0; i < len; ++i) {
      const Bits x = Load(pa, i), y = Load(pb, i);
      const uint64_t index = begin + i;
      if (x == y) {
        if constexpr (Tr::kFloat) {
          if (!rules_.nan_equal && Tr::IsNan(x)) NanMismatch(index, x, y);
        }
        continue;
      }
      ++s_.not_bitwise;
      const double a = Tr::Value(x), b = Tr::Value(y);
      if constexpr (Tr::kFloat) {
        const bool na = Tr::IsNan(x), nb = Tr::IsNan(y);
        if (na || nb) {
          if (!(na && nb && rules_.nan_equal)) NanMismatch(index, x, y);
          continue;
        }
        if (std::isinf(a) || std::isinf(b)) {  // not the same infinity: bits differ
          ++s_.inf_mismatch;
          Beyond(index, a, b, std::numeric_limits<double>::infinity());
          continue;
        }
      }
      const double diff = std::fabs(a - b);
      const double rel = a == 0 ? (diff == 0 ? 0 : std::numeric_limits<double>::infinity())
                                : diff / std::fabs(a);
      uint64_t ulp = 0;
      if constexpr (Tr::kFloat) {
        ulp = UlpDistance<Bits>(x, y);
        if (ulp > s_.max_ulp) s_.max_ulp = ulp;
      }
      if (rel > s_.max_rel) s_.max_rel = rel;
      if (diff > s_.max_abs || s_.worst_index < 0) {
        if (diff > s_.max_abs) s_.max_abs = diff;
        if (!s_.worst_beyond) Worst(index, a, b);
      }
      bool ok = false;
      if constexpr (Tr::kFloat) {
        ok = !rules_.exact && (diff <= tol.atol + tol.rtol * std::fabs(a) ||
                               (tol.ulp > 0 && ulp <= tol.ulp));
      }
      if (!ok) Beyond(index, a, b, diff);
    }
  }

  ElementRules rules_;
  ElementStats s_;
  double worst_badness_ = 0;
};

template <DType T>
ElementStats Run(const uint8_t* a, const uint8_t* b, uint64_t n, const ElementRules& rules) {
  Comparer<T> c(rules);
  c.Run(a, b, n);
  return c.stats();
}
}  // namespace

uint64_t UlpDistance16(uint16_t a, uint16_t b) { return UlpDistance<uint16_t>(a, b); }
uint64_t UlpDistance32(uint32_t a, uint32_t b) { return UlpDistance<uint32_t>(a, b); }
uint64_t UlpDistance64(uint64_t a, uint64_t b) { return UlpDistance<uint64_t>(a, b); }

ElementStats CompareElements(DType dtype, const uint8_t* a, const uint8_t* b, uint64_t n,
                             const ElementRules& rules) {
  switch (dtype) {
    case DType::kF64: return Run<DType::kF64>(a, b, n, rules);
    case DType::kF32: return Run<DType::kF32>(a, b, n, rules);
    case DType::kF16: return Run<DType::kF16>(a, b, n, rules);
    case DType::kBF16: return Run<DType::kBF16>(a, b, n, rules);
    case DType::kI64: return Run<DType::kI64>(a, b, n, rules);
    case DType::kI32: return Run<DType::kI32>(a, b, n, rules);
    case DType::kI16: return Run<DType::kI16>(a, b, n, rules);
    case DType::kI8: return Run<DType::kI8>(a, b, n, rules);
    case DType::kU64: return Run<DType::kU64>(a, b, n, rules);
    case DType::kU32: return Run<DType::kU32>(a, b, n, rules);
    case DType::kU16: return Run<DType::kU16>(a, b, n, rules);
    case DType::kU8: return Run<DType::kU8>(a, b, n, rules);
    case DType::kBool: return Run<DType::kBool>(a, b, n, rules);
  }
  return {};
}

}  // namespace fastenough::compare
