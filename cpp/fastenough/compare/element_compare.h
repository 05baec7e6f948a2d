// Element-by-element comparison of two arrays of one dtype: the largest
// absolute, relative and ULP differences, and how many elements are beyond
// tolerance. A is the reference: relative error is |a - b| / |a|.
//
// Rules (documented in `fastenough compare --help`):
// - an element is within tolerance when |a - b| <= atol + rtol * |a|, or when
//   its ULP distance is at most `ulp` (0 turns the ULP test off);
// - integers and bool are compared exactly whatever the tolerances;
// - NaN is never equal to anything, itself included, unless nan_equal (then
//   any NaN matches any NaN); a NaN against a number is a NaN mismatch;
// - an infinity matches only the same infinity (an inf mismatch otherwise);
// - -0.0 and 0.0 are equal (ULP distance 0) unless exact;
// - exact: any difference in bits is beyond tolerance (NaN aside, as above).
#pragma once

#include <cstdint>

#include "fastenough/compare/dtype.h"

namespace fastenough::compare {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
  uint64_t ulp = 0;
};

struct ElementRules {
  Tolerance tol;
  bool exact = false;
  bool nan_equal = false;
};

struct ElementStats {
  uint64_t elements = 0;
  uint64_t not_bitwise = 0;       // elements whose bytes differ
  uint64_t beyond_tolerance = 0;  // elements that fail the rules (NaN/inf mismatches included)
  uint64_t nan_mismatch = 0;
  uint64_t inf_mismatch = 0;
  double max_abs = 0;  // over pairs of finite values
  double max_rel = 0;  // +inf when a is 0 and b is not
  uint64_t max_ulp = 0;  // floats only
  // The element to show: the worst beyond tolerance (a NaN/inf mismatch first,
  // else the largest |a - b|), or the largest |a - b| when none is beyond.
  int64_t worst_index = -1;
  double worst_a = 0, worst_b = 0;
  bool worst_beyond = false;
};

// ULP distance of two floats of the given bit width, on the number line where
// -0 and +0 are the same point: adjacent floats are 1 apart. Not for NaN.
uint64_t UlpDistance16(uint16_t a, uint16_t b);
uint64_t UlpDistance32(uint32_t a, uint32_t b);
uint64_t UlpDistance64(uint64_t a, uint64_t b);

ElementStats CompareElements(DType dtype, const uint8_t* a, const uint8_t* b, uint64_t n,
                             const ElementRules& rules);

}  // namespace fastenough::compare
