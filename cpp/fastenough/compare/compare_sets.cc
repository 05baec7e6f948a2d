#include "fastenough/compare/compare_sets.h"

#include <algorithm>
#include <unordered_map>

#include "fastenough/compare/load_side.h"

namespace fastenough::compare {

std::array<Tolerance, kNumDTypes> CompareOptions::DefaultTolerances() {
  std::array<Tolerance, kNumDTypes> t{};  // integers and bool: exact
  t[static_cast<int>(DType::kF64)] = {1e-7, 1e-7, 0};
  t[static_cast<int>(DType::kF32)] = {1e-5, 1.3e-6, 0};
  t[static_cast<int>(DType::kF16)] = {1e-5, 1e-3, 0};
  t[static_cast<int>(DType::kBF16)] = {1e-5, 1.6e-2, 0};
  return t;
}

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kBitwiseEqual: return "bitwise-equal";
    case Verdict::kWithinTolerance: return "within-tolerance";
    case Verdict::kDiffers: return "differs";
  }
  return "differs";
}

namespace {
KeyResult CompareOne(const TensorRef& a, const TensorRef& b, const CompareOptions& opt) {
  KeyResult k;
  k.key = a.key;
  k.a = &a;
  k.b = &b;
  if (a.dtype != b.dtype) {
    k.mismatch = "dtype";
  } else if (a.shape != b.shape) {
    k.mismatch = "shape";
  }
  if (!k.mismatch.empty()) {
    k.verdict = Verdict::kDiffers;
    return k;
  }
  const ElementRules rules{opt.tol[static_cast<int>(a.dtype)], opt.exact, opt.nan_equal};
  k.stats = CompareElements(a.dtype, a.data, b.data, ElementCount(a.shape), rules);
  if (k.stats.beyond_tolerance > 0) {
    k.verdict = Verdict::kDiffers;
  } else if (k.stats.not_bitwise > 0) {
    k.verdict = Verdict::kWithinTolerance;
  }
  return k;
}

// Worse first: differs before within tolerance; a shape/dtype mismatch, then
// more elements beyond tolerance, then the larger ULP / absolute error.
bool Worse(const KeyResult& x, const KeyResult& y) {
  if (x.verdict != y.verdict) return x.verdict > y.verdict;
  if (x.mismatch.empty() != y.mismatch.empty()) return !x.mismatch.empty();
  if (x.stats.beyond_tolerance != y.stats.beyond_tolerance) {
    return x.stats.beyond_tolerance > y.stats.beyond_tolerance;
  }
  if (x.stats.max_ulp != y.stats.max_ulp) return x.stats.max_ulp > y.stats.max_ulp;
  if (x.stats.max_abs != y.stats.max_abs) return x.stats.max_abs > y.stats.max_abs;
  return x.key < y.key;
}
}  // namespace

CompareResult CompareSets(const TensorSet& a, const TensorSet& b, const CompareOptions& opt) {
  CompareResult r;
  std::unordered_map<std::string_view, const TensorRef*> in_b;
  for (const TensorRef& t : b.tensors) in_b.emplace(t.key, &t);
  std::unordered_map<std::string_view, bool> in_a;
  for (const TensorRef& t : a.tensors) {
    in_a.emplace(t.key, true);
    auto it = in_b.find(t.key);
    if (it == in_b.end()) {
      r.missing.push_back(t.key);
    } else {
      r.keys.push_back(CompareOne(t, *it->second, opt));
    }
  }
  for (const TensorRef& t : b.tensors) {
    if (!in_a.count(t.key)) r.extra.push_back(t.key);
  }
  std::sort(r.keys.begin(), r.keys.end(),
            [](const KeyResult& x, const KeyResult& y) { return x.key < y.key; });
  std::sort(r.missing.begin(), r.missing.end());
  std::sort(r.extra.begin(), r.extra.end());
  for (size_t i = 0; i < r.keys.size(); ++i) {
    if (r.keys[i].verdict != Verdict::kBitwiseEqual) r.worst.push_back(i);
    r.verdict = std::max(r.verdict, r.keys[i].verdict);
  }
  if (!r.missing.empty() || !r.extra.empty()) r.verdict = Verdict::kDiffers;
  std::sort(r.worst.begin(), r.worst.end(),
            [&](size_t x, size_t y) { return Worse(r.keys[x], r.keys[y]); });
  return r;
}

StatusOr<std::string> ComparePathsJson(const std::string& a, const std::string& b,
                                       const CompareOptions& opt) {
  auto sa = LoadSide(a);
  if (!sa.ok()) return sa.status();
  auto sb = LoadSide(b);
  if (!sb.ok()) return sb.status();
  const CompareResult r = CompareSets(*sa, *sb, opt);
  return CompareResultJson(*sa, *sb, opt, r);
}

}  // namespace fastenough::compare
