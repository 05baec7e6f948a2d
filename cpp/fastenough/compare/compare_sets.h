// Pairs the tensors of two sides by key, compares each pair, and summarises:
// per key a verdict, overall bitwise-equal / within-tolerance / differs, and
// the worst keys first. Written as JSON, schema fastenough.compare/1 (the
// fields are listed in python/fastenough/cli/compare.py).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "fastenough/compare/element_compare.h"
#include "fastenough/compare/tensor_set.h"
#include "fastenough/util/status.h"

namespace fastenough::compare {

struct CompareOptions {
  std::array<Tolerance, kNumDTypes> tol = DefaultTolerances();
  bool exact = false;
  bool nan_equal = false;
  int top = 10;  // worst keys listed

  // As torch.testing.assert_close: f64 atol 1e-7 rtol 1e-7, f32 atol 1e-5 rtol
  // 1.3e-6, f16 atol 1e-5 rtol 1e-3, bf16 atol 1e-5 rtol 1.6e-2; ULP test off;
  // integers and bool exact.
  static std::array<Tolerance, kNumDTypes> DefaultTolerances();
};

enum class Verdict { kBitwiseEqual, kWithinTolerance, kDiffers };
const char* VerdictName(Verdict v);  // "bitwise-equal", "within-tolerance", "differs"

struct KeyResult {
  std::string key;
  const TensorRef* a = nullptr;
  const TensorRef* b = nullptr;
  Verdict verdict = Verdict::kBitwiseEqual;
  std::string mismatch;  // "shape" or "dtype" when the elements were not compared
  ElementStats stats;
};

struct CompareResult {
  Verdict verdict = Verdict::kBitwiseEqual;
  std::vector<KeyResult> keys;      // paired keys, sorted by key
  std::vector<std::string> missing;  // in A, not in B
  std::vector<std::string> extra;    // in B, not in A
  std::vector<size_t> worst;         // indices into keys, worst first (not bitwise equal only)
};

CompareResult CompareSets(const TensorSet& a, const TensorSet& b, const CompareOptions& opt);
std::string CompareResultJson(const TensorSet& a, const TensorSet& b, const CompareOptions& opt,
                              const CompareResult& r);

// LoadSide both paths, compare, JSON: what the binding calls.
StatusOr<std::string> ComparePathsJson(const std::string& a, const std::string& b,
                                       const CompareOptions& opt);

}  // namespace fastenough::compare
