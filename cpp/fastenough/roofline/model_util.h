// Helpers shared by the per-family model files (private to roofline/).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fastenough/roofline/op_work.h"

namespace fastenough::roofline::detail {

inline std::string Dims(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// The i-th argument when it is a tensor of rank in [min_rank, max_rank].
inline const OpArg* TensorArg(const OpCall& c, size_t i, size_t min_rank = 0,
                              size_t max_rank = 64) {
  const OpArg* a = c.arg(i);
  if (a == nullptr || !a->is_tensor()) return nullptr;
  if (a->dims.size() < min_rank || a->dims.size() > max_rank) return nullptr;
  return a;
}

inline Status BadShapes(const OpCall& c, const std::string& why) {
  return InvalidArgument(c.name + ": " + why);
}

inline double Prod(const std::vector<int64_t>& v, size_t from = 0, size_t to = SIZE_MAX) {
  double p = 1;
  for (size_t i = from; i < to && i < v.size(); ++i) p *= static_cast<double>(v[i]);
  return p;
}

// An optional concrete bool at argument i; `fallback` with a note when the
// trace did not record it.
inline bool ConcreteBool(const OpCall& c, size_t i, bool fallback, const char* what,
                         OpWork* w) {
  const OpArg* a = c.arg(i);
  if (a != nullptr) {
    if (auto v = a->bool_value()) return *v;
  }
  w->notes.push_back(std::string(what) + " not recorded (no Concrete Inputs): taken as " +
                     (fallback ? "True" : "False"));
  return fallback;
}

// A backward's output_mask (`bool[3]`, Concrete Inputs "[True, True, False]")
// at argument i, read into `mask`; false (mask untouched) when not recorded.
inline bool ReadOutputMask(const OpCall& c, size_t i, bool (&mask)[3]) {
  const OpArg* m = c.arg(i);
  if (m == nullptr || m->concrete.empty()) return false;
  std::string_view s = m->concrete;
  size_t k = 0, pos = 0;
  while (k < 3 && pos < s.size()) {
    const size_t t = s.find_first_of("TF", pos);
    if (t == std::string_view::npos) break;
    mask[k++] = s[t] == 'T';
    pos = t + 1;
  }
  return true;
}

}  // namespace fastenough::roofline::detail
